import { startTestApp, type TestApp } from '../support/app';
import { randomUUID } from 'node:crypto';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import { post } from '../support/graphql-http';
import { appendLedgerEvents } from '../../src/ledger/ledger.service';
import { NESTED_LIST_CAP } from '../../src/graphql/loaders';

/**
 * Unpaginated nested lists are capped (issue 29, item 3): a run's ledger events, tool calls
 * and messages, a call's ledger events, each the first NESTED_LIST_CAP in order, however many
 * the run has; the rest are read with the paginated root queries.
 */
let app: TestApp;
let owner: TestOrg;

beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em());
});
afterAll(async () => app?.close());

test(`a run with more than ${NESTED_LIST_CAP} ledger events lists the first ${NESTED_LIST_CAP}, in order; the paginated query has the rest`, async () => {
  const run = await newRun(app.em(), owner); // its run.created is the first event
  const extra = NESTED_LIST_CAP + 5;
  await app.em().transactional((tx) =>
    appendLedgerEvents(
      tx,
      Array.from({ length: extra }, (_v, i) => ({ orgId: owner.org.id, type: 'run.resumed', runId: run.id, resourceId: run.id, metadata: { i } })),
    ),
  );
  const answer = await post(
    app.url,
    { query: 'query($id: ID!) { run(id: $id) { ledgerEvents { sequence } } }', variables: { id: run.id } },
    { key: owner.keys.admin },
  );
  expect(answer.body.errors).toBeUndefined();
  const sequences = (answer.body.data!.run.ledgerEvents as { sequence: string }[]).map((e) => Number(e.sequence));
  expect(sequences).toHaveLength(NESTED_LIST_CAP);
  const [{ first }] = await app
    .em()
    .getConnection()
    .execute<{ first: string }[]>('select min(sequence) as first from ledger_events where run_id = ?', [run.id]);
  expect(sequences).toEqual(Array.from({ length: NESTED_LIST_CAP }, (_v, i) => Number(first) + i));

  const all = await post(
    app.url,
    { query: 'query($runId: ID!) { ledgerEvents(filter: { runId: $runId }, first: 1) { totalCount } }', variables: { runId: run.id } },
    { key: owner.keys.admin },
  );
  expect(all.body.data?.ledgerEvents.totalCount).toBe(extra + 1);
});

test('a run’s tool calls and an approval’s call (the loaders, reading only the columns the type shows) answer every field as toolCall(id) does', async () => {
  const run = await newRun(app.em(), owner);
  const { call, approval } = await newToolCall(app.em(), owner, run, { approval: { kind: 'expert', status: 'approved' } });
  // Every column set, the ones no field shows too (a running call's sealed input, its node, its fingerprint).
  await app
    .em()
    .getConnection()
    .execute(
      `update tool_calls set edited_input_redacted = '{"orderId":"67890"}', review_required = true, review_acknowledged_at = now(),
         review_acknowledged_by = ?, review_note = 'looked', error_code = 'VENDOR_TIMEOUT', error_text = 'timed out', vendor_status_code = 504,
         retry_count = 2, duration_ms = 31, cost_cents = 7, tool_use_id = 'toolu_1', fingerprint = 'f', node_id = ?, sealed_input = '{"v":1}'
       where id = ?`,
      [randomUUID(), randomUUID(), call.id],
    );
  const fields = `id runId toolName action correlationId status input editedInput output riskLevel reviewRequired reviewAcknowledgedAt
    reviewAcknowledgedBy reviewNote errorCode errorText vendorStatusCode retryCount durationMs costCents createdAt updatedAt policyDecision { id }`;
  const answer = await post(
    app.url,
    {
      query: `query($run: ID!, $call: ID!) {
        run(id: $run) { toolCalls { ${fields} } }
        approvalRequests(first: 100) { edges { node { id toolCall { ${fields} } } } }
        toolCall(id: $call) { ${fields} }
      }`,
      variables: { run: run.id, call: call.id },
    },
    { key: owner.keys.admin },
  );
  expect(answer.body.errors).toBeUndefined();
  const data = answer.body.data!;
  const direct = data.toolCall as Record<string, unknown>;
  for (const [field, value] of Object.entries(direct)) expect([field, value]).not.toEqual([field, null]);
  expect(data.run.toolCalls).toEqual([direct]);
  const edge = (data.approvalRequests.edges as { node: { id: string; toolCall: unknown } }[]).find((e) => e.node.id === approval!.id);
  expect(edge?.node.toolCall).toEqual(direct);
});
