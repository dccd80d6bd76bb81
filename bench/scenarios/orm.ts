import { callFingerprint } from '../../src/gateway/call-fingerprint';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { TOOLS, VENDOR_RESULT, type BenchOrg, type BenchServer } from '../lib/app';
import { rawToolCall, type Notifier } from '../lib/raw-tool-call';
import { figure, measure, type BenchContext, type Figure, type Variant } from '../lib/measure';
import { ToolRegistry, type RegisteredTool } from '../../src/gateway/tool-registry';
import { recordDecidedCall, recordOutcome } from '../../src/gateway/tool-call-recorder';
import type { PolicyVerdict } from '../../src/policy/policy-evaluator';
import type { ExecutionOutcome } from '../../src/executor/executor.types';
import { callers, nextCallIds } from './gateway';

/**
 * 2. ORM: persisting one tool call — the gateway's own recorder functions in MikroORM
 * transactions (transaction 1: decision + call rows with the ledger append; transaction 2:
 * the outcome, ledger append) — against raw `pg` sending the same statements. No run
 * lookup, no policy, no HTTP: the difference is the ORM's transaction and per-statement
 * path (query formatting, knex runner) plus the recorder's output redaction. The gateway
 * itself runs these functions on a raw transaction (src/db/raw-transaction.ts); this
 * figure is what that saves.
 */
const VERDICT: PolicyVerdict = {
  outcome: 'allow',
  shadowOutcome: null,
  risk: 'low',
  matchedRuleId: null,
  reason: 'no rule matched; catalog default risk low',
};
const OUTCOME: ExecutionOutcome = { ok: true, data: VENDOR_RESULT, vendorStatusCode: 200, retries: [] };
const TOOL = TOOLS[0];

export interface OrmEnv {
  server: BenchServer;
  pool: pg.Pool;
  notifier: Notifier;
  demo: BenchOrg;
  spread: BenchOrg[];
}

export async function loadTool(server: BenchServer): Promise<RegisteredTool> {
  const tool = await new ToolRegistry().find(server.em(), randomUUID(), TOOL.toolName, TOOL.action);
  if (!tool) throw new Error('order_lookup.lookup is not in the catalog');
  return tool;
}

/** One call persisted through MikroORM by the gateway's recorder. */
export function ormPersist(server: BenchServer, tool: RegisteredTool) {
  return async (org: BenchOrg, runId: string): Promise<void> => {
    const started = performance.now();
    const em = server.orm.em.fork();
    const request = { runId, toolName: TOOL.toolName, action: TOOL.action, params: TOOL.params, ...nextCallIds(), caller: org.agent };
    const decided = await em.transactional((tx) =>
      recordDecidedCall(tx, {
        run: { id: runId, orgId: org.orgId, status: 'running' },
        request,
        inputRedacted: TOOL.params,
        fingerprint: callFingerprint({ runId, ...TOOL }),
        tool,
        verdict: VERDICT,
        policyVersion: 1,
        keyring: server.services.keyring,
        approvalTtlMs: server.config.approvalTtlMs,
        params: { ...TOOL.params },
        nodeId: server.services.nodeId,
        claim: () => undefined,
        metadata: server.orm.getMetadata(),
      }),
    );
    const durationMs = Math.round(performance.now() - started);
    await em.transactional((tx) =>
      recordOutcome(tx, decided.call, OUTCOME, { durationMs, costCents: 0, approvalRequestId: null, nodeId: server.services.nodeId }),
    );
  };
}

export async function ormScenario(ctx: BenchContext, env: OrmEnv): Promise<Figure[]> {
  const tool = await loadTool(env.server);
  const persist = ormPersist(env.server, tool);
  const figures: Figure[] = [];
  for (const concurrency of [1, 8]) {
    ctx.log(`ORM: ${concurrency} concurrent caller(s)`);
    // One org per caller: the ledger lock stays out of an ORM-versus-SQL comparison.
    const set = await callers(env.server, (i) => env.spread[i % env.spread.length], concurrency);
    const variants: Variant[] = [
      {
        key: 'raw',
        label: 'raw pg (same statements)',
        op: (i) =>
          rawToolCall(
            env.pool,
            { orgId: set.orgs[i].orgId, runId: set.runIds[i], caller: set.orgs[i].agent, ...TOOL, ...nextCallIds(), policyVersion: 1 },
            { reads: false, notifier: env.notifier },
          ),
      },
      { key: 'orm', label: 'MikroORM recorder', op: (i) => persist(set.orgs[i], set.runIds[i]) },
    ];
    const m = await measure(ctx, 'orm', concurrency, variants);
    figures.push(
      figure(
        {
          id: `orm.persist.c${concurrency}`,
          section: 'ORM — persisting one tool call',
          name: 'MikroORM persisting one call',
          concurrency,
          subject: m.orm,
          baselineName: 'raw pg, same statements',
          baseline: m.raw,
          note: 'each caller in its own org',
        },
        ({ ratio }) => [{ label: 'throughput ≥ 60 %', short: '≥60%', pass: ratio >= 0.6 }],
      ),
    );
  }
  return figures;
}
