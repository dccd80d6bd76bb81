import { Client } from 'pg';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { post } from '../support/graphql-http';
import { VERIFY_LEDGER_COST } from '../../src/ledger/ledger-verify';
import { verifyLockName } from '../../src/ledger/ledger-verify';

/**
 * verifyLedger re-hashes the org's whole chain (issue 29, item 3): it is charged a cost
 * that reflects that (VERIFY_LEDGER_COST, again for each alias), and runs one at a time per
 * org — a second verification while one runs is refused LEDGER_VERIFY_BUSY.
 */
let app: TestApp;
let owner: TestOrg;

beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em());
});
afterAll(async () => app?.close());

const remaining = (header: string | null) => Number(/r=(\d+)/.exec(header ?? '')?.[1]);
const aliased = (n: number) => `{ ${Array.from({ length: n }, (_v, i) => `v${i}: verifyLedger { ok }`).join(' ')} }`;

test('charged VERIFY_LEDGER_COST per verification, each alias again; more than the cost limit allows is refused before it runs', async () => {
  const key = owner.keys.expert;
  const cheap = await post(app.url, { query: '{ viewer { role } }' }, { key });
  const before = remaining(cheap.headers.get('ratelimit'));
  const one = await post(app.url, { query: '{ verifyLedger { ok eventsChecked } }' }, { key });
  expect(one.body.data?.verifyLedger.ok).toBe(true);
  expect(before - remaining(one.headers.get('ratelimit'))).toBe(VERIFY_LEDGER_COST);
  // Aliases in one operation: each is charged (and they run one at a time: the others may be refused busy).
  const three = await post(app.url, { query: aliased(3) }, { key });
  expect(remaining(one.headers.get('ratelimit')) - remaining(three.headers.get('ratelimit'))).toBe(3 * VERIFY_LEDGER_COST);
  const fifteen = await post(app.url, { query: aliased(15) }, { key });
  expect(fifteen.status).toBe(400);
  expect(fifteen.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', cost: 15 * VERIFY_LEDGER_COST });
});

test('one at a time per org: while a verification holds the org, another is refused LEDGER_VERIFY_BUSY; other orgs run; after it, the org runs', async () => {
  const other = await newOrg(app.em());
  // A verification in progress on another node: the org's lock held by another session.
  const running = new Client({ connectionString: app.db.url });
  await running.connect();
  try {
    await running.query('begin');
    await running.query('select pg_advisory_xact_lock(hashtext($1))', [verifyLockName(owner.org.id)]);
    const busy = await post(app.url, { query: '{ verifyLedger { ok } }' }, { key: owner.keys.admin });
    expect(busy.body.errors?.[0]?.extensions?.code).toBe('LEDGER_VERIFY_BUSY');
    expect(busy.body.data ?? null).toBeNull();
    const elsewhere = await post(app.url, { query: '{ verifyLedger { ok } }' }, { key: other.keys.admin });
    expect(elsewhere.body.data?.verifyLedger.ok).toBe(true);
    await running.query('commit');
    const after = await post(app.url, { query: '{ verifyLedger { ok } }' }, { key: owner.keys.admin });
    expect(after.body.data?.verifyLedger.ok).toBe(true);
  } finally {
    await running.end();
  }
});
