import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { graphql } from '../gql';
import type { RunRelationsFragment } from '../gql/graphql';
import { AgentRun } from '../../src/runs/agent-run.entity';
import { ToolCall } from '../../src/gateway/tool-call.entity';
import { PolicyDecision } from '../../src/policy/policy-decision.entity';
import { ApprovalRequest } from '../../src/approvals/approval-request.entity';

/**
 * The nested runs query costs a fixed number of SQL statements whatever the amount of
 * data: the loaders batch each relation into one statement (no N+1).
 *
 * The count includes the API-key lookup (`authenticate`, one select on api_keys), which
 * runs through the same ORM before the operation executes; everything `app.statements`
 * records between clearing it and the response belongs to this one request.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

graphql(`
  fragment RunRelations on AgentRun {
    id
    toolCalls { id policyDecision { id } approvalRequest { id } }
  }
`);
const NESTED = graphql(`
  query NestedRuns {
    runs(first: 50) { edges { node { ...RunRelations } } }
  }
`);
const NESTED_PAGE = graphql(`
  query NestedRunsPage($after: String) {
    runs(first: 5, after: $after) { pageInfo { endCursor } edges { node { ...RunRelations } } }
  }
`);
const MAX_STATEMENTS = 6;

interface Measured {
  count: number;
  statements: string[];
  runs: RunRelationsFragment[];
}

async function measure(owner: TestOrg): Promise<Measured> {
  app.statements.length = 0;
  const res = await app.gql(NESTED, { key: owner.keys.admin });
  const statements = [...app.statements];
  expect(res.body.errors).toBeUndefined();
  return { count: statements.length, statements, runs: res.body.data!.runs.edges.map((e) => e.node) };
}

/**
 * `runs` runs of `callsPerRun` tool calls each, every call with its policy decision and
 * every fourth with a pending approval: one transaction per org, inserts batched by the
 * ORM (the factories' one-transaction-per-row is too slow for 160 rows). No ledger
 * events: the measured query does not read them.
 */
async function seed(owner: TestOrg, runs: number, callsPerRun: number, base: number) {
  await app.em().transactional(async (tx) => {
    for (let i = 0; i < runs; i += 1) {
      const run = tx.create(AgentRun, {
        orgId: owner.org.id,
        specialistId: owner.specialist.id,
        status: 'completed',
        metadata: { runtimeManifest: { allowedTools: ['order_lookup.lookup'], policyVersion: 1 } },
        correlationId: randomUUID(),
        createdAt: new Date(base + i * 60_000),
      });
      for (let j = 0; j < callsPerRun; j += 1) {
        const needsApproval = (i * callsPerRun + j) % 4 === 0;
        const decision = tx.create(PolicyDecision, {
          orgId: owner.org.id,
          runId: run.id,
          toolName: 'order_lookup',
          action: 'lookup',
          outcome: needsApproval ? 'require_expert_approval' : 'allow',
          risk: 'low',
          policyVersion: 1,
          callerRole: 'agent',
          reason: 'catalog default risk low',
        });
        const call = tx.create(ToolCall, {
          orgId: owner.org.id,
          runId: run.id,
          toolName: 'order_lookup',
          action: 'lookup',
          correlationId: randomUUID(),
          status: needsApproval ? 'waiting_approval' : 'succeeded',
          inputRedacted: { orderId: '12345' },
          outputRedacted: null,
          policyDecisionId: decision.id,
          riskLevel: 'low',
          createdAt: new Date(base + i * 60_000 + j),
        });
        if (needsApproval) {
          tx.create(ApprovalRequest, {
            orgId: owner.org.id,
            runId: run.id,
            toolCallId: call.id,
            kind: 'expert',
            bindingHash: 'test-binding',
            expiresAt: new Date(Date.now() + 86_400_000),
          });
        }
      }
    }
  });
}

test('runs → toolCalls → policyDecision + approvalRequest costs the same few statements for 2 or 40 runs', async () => {
  const small = await newOrg(app.em(), 'Small');
  const large = await newOrg(app.em(), 'Large');
  await seed(small, 2, 1, Date.UTC(2024, 5, 1));
  await seed(large, 40, 3, Date.UTC(2024, 5, 2));

  const smallCount = await measure(small);
  const largeCount = await measure(large);

  // The data is really there, so the loaders really ran for every level.
  expect(smallCount.runs).toHaveLength(2);
  expect(largeCount.runs).toHaveLength(40);
  const calls = largeCount.runs.flatMap((r) => r.toolCalls);
  expect(calls).toHaveLength(120);
  expect(calls.every((c) => c.policyDecision !== null)).toBe(true);
  expect(calls.filter((c) => c.approvalRequest !== null)).toHaveLength(30);

  console.log(
    `statement count for the nested runs query: ${smallCount.count} (2 runs × 1 call), ` +
      `${largeCount.count} (40 runs × 3 calls), including the API-key lookup\n` +
      largeCount.statements.map((s, i) => `  ${i + 1}. ${s.slice(0, 160)}`).join('\n'),
  );
  expect(largeCount.count).toBe(smallCount.count);
  expect(largeCount.count).toBeLessThanOrEqual(MAX_STATEMENTS);
  // Which statements: the key, the page of runs, and one batch per relation.
  const tables = largeCount.statements.map((s) => /\bfrom\s+"?(\w+)"?/i.exec(s)?.[1]);
  expect(tables).toEqual(expect.arrayContaining(['api_keys', 'agent_runs', 'tool_calls', 'policy_decisions', 'approval_requests']));
});

test('the count does not grow with a second page', async () => {
  const owner = await newOrg(app.em(), 'Paged');
  await seed(owner, 12, 2, Date.UTC(2024, 6, 1));
  const query = (after: string | null) => app.gql(NESTED_PAGE, { key: owner.keys.admin, variables: { after } });
  const counts: number[] = [];
  let after: string | null = null;
  for (let page = 0; page < 3; page += 1) {
    app.statements.length = 0;
    const res = await query(after);
    counts.push(app.statements.length);
    expect(res.body.errors).toBeUndefined();
    after = res.body.data!.runs.pageInfo.endCursor;
  }
  expect(new Set(counts).size).toBe(1);
  expect(counts[0]).toBeLessThanOrEqual(MAX_STATEMENTS);
});
