import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, type TestOrg } from '../support/factories';
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
