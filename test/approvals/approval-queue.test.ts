import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import type { RiskLevel } from '../../src/catalog/risk';

/**
 * A queue as reviewer teams work it: 120 pending requests, paged on the server with the total,
 * ordered by time left (nearest expiry first), by risk or by age, and filtered by tool,
 * amount and customer. Paging walks every row exactly once in each order.
 */
let app: TestApp;
let owner: TestOrg;
const RISKS: RiskLevel[] = ['low', 'medium', 'high'];
const expected: { id: string; expiresAt: number; createdAt: number; risk: RiskLevel; amount: number; customerId: string; tool: string }[] = [];

const QUEUE = `query($first: Int, $after: String, $orderBy: ApprovalOrder, $filter: ApprovalRequestFilter) {
  approvalRequests(first: $first, after: $after, orderBy: $orderBy, filter: $filter) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges { node { id expiresAt createdAt toolCall { riskLevel toolName input } } }
  }
}`;

interface Page {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: { node: { id: string } }[];
}

async function page(variables: Record<string, unknown>): Promise<Page> {
  const res = await app.gql<{ approvalRequests: Page }>(QUEUE, { key: owner.keys.expert, variables });
  if (!res.body.data) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data.approvalRequests;
}

async function walk(variables: Record<string, unknown>, size = 50): Promise<{ ids: string[]; total: number; pages: number }> {
  const ids: string[] = [];
  let after: string | null = null;
  let total = 0;
  let pages = 0;
  for (;;) {
    const current = await page({ ...variables, first: size, after });
    total = current.totalCount;
    pages += 1;
    ids.push(...current.edges.map((e) => e.node.id));
    if (!current.pageInfo.hasNextPage) return { ids, total, pages };
    after = current.pageInfo.endCursor;
  }
}

beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em());
  const run = await newRun(app.em(), owner, { status: 'waiting_approval' });
  const now = Date.now();
  for (let i = 0; i < 120; i++) {
    // Expiry and creation in different orders, several rows per risk, some sharing an expiry (ties broken by id).
    const expiresAt = new Date(now + 3_600_000 + ((i * 37) % 120) * 60_000 - (i % 7 === 0 ? 0 : 1) * 1000 * (i % 3));
    const createdAt = new Date(now - (120 - i) * 1000);
    const risk = RISKS[i % 3];
    const amount = (i % 10) * 100 + 0.5;
    const customerId = String(i % 4);
    const tool = i % 5 === 0 ? 'order_lookup' : 'invoice';
    const { approval } = await newToolCall(app.em(), owner, run, {
      status: 'waiting_approval',
      toolName: tool,
      action: tool === 'invoice' ? 'send' : 'lookup',
      outcome: 'require_expert_approval',
      riskLevel: risk,
      input: tool === 'invoice' ? { customerId, amount } : { orderId: String(i) },
      createdAt,
      approval: { kind: 'expert', expiresAt },
    });
    expected.push({ id: approval!.id, expiresAt: expiresAt.getTime(), createdAt: createdAt.getTime(), risk, amount, customerId, tool });
  }
  // Resolved requests stay out of a pending queue.
  await newToolCall(app.em(), owner, run, { approval: { kind: 'expert', status: 'approved' } });
}, 120_000);

afterAll(async () => {
  await app?.close();
});

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const rank = (risk: RiskLevel) => RISKS.indexOf(risk);

test('120 pending, paged by 50 in time-left order: 3 pages, the total on each, every request once, nearest expiry first', async () => {
  const { ids, total, pages } = await walk({ orderBy: 'time_left', filter: { status: 'pending' } });
  expect(total).toBe(120);
  expect(pages).toBe(3);
  const order = [...expected].sort((a, b) => a.expiresAt - b.expiresAt || byId(a.id, b.id)).map((e) => e.id);
  expect(ids).toEqual(order);
});

test('by risk: the highest first, then the nearest expiry; by age: the oldest first; paging by 7 agrees with one page', async () => {
  const risk = await walk({ orderBy: 'risk', filter: { status: 'pending' } }, 7);
  expect(risk.ids).toEqual(
    [...expected].sort((a, b) => rank(b.risk) - rank(a.risk) || a.expiresAt - b.expiresAt || byId(a.id, b.id)).map((e) => e.id),
  );
  const oldest = await walk({ orderBy: 'oldest', filter: { status: 'pending' } }, 7);
  expect(oldest.ids).toEqual([...expected].sort((a, b) => a.createdAt - b.createdAt || byId(a.id, b.id)).map((e) => e.id));
  const newest = await walk({ orderBy: 'newest', filter: { status: 'pending', toolName: 'invoice' } }, 7);
  expect(newest.ids).toEqual(
    expected
      .filter((e) => e.tool === 'invoice')
      .sort((a, b) => b.createdAt - a.createdAt || byId(b.id, a.id))
      .map((e) => e.id),
  );
});

test('filters: tool, action, amount range and customer, with their total', async () => {
  const match = expected.filter((e) => e.tool === 'invoice' && e.amount >= 200 && e.amount <= 600.5 && e.customerId === '2');
  const { ids, total } = await walk({
    orderBy: 'time_left',
    filter: { status: 'pending', toolName: 'invoice', action: 'send', amountMin: 200, amountMax: 600.5, customerId: '2' },
  });
  expect(match.length).toBeGreaterThan(3);
  expect(total).toBe(match.length);
  expect(new Set(ids)).toEqual(new Set(match.map((e) => e.id)));
  // A call without an amount is outside any amount range.
  const lookups = await walk({ filter: { status: 'pending', toolName: 'order_lookup', amountMin: 0 } });
  expect(lookups.total).toBe(0);
});

test('a cursor of another order, or one this list never made, is refused with BAD_USER_INPUT and its field', async () => {
  const first = await page({ orderBy: 'risk', first: 5 });
  for (const after of [first.pageInfo.endCursor, Buffer.from('["time_left","x","y"]').toString('base64url'), 'garbage']) {
    const res = await app.gql(QUEUE, { key: owner.keys.expert, variables: { orderBy: 'time_left', first: 5, after } });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
  }
});

test('another org sees none of them', async () => {
  const other = await newOrg(app.em());
  const res = await app.gql<{ approvalRequests: Page }>(QUEUE, {
    key: other.keys.expert,
    variables: { orderBy: 'time_left', filter: { toolName: 'invoice' } },
  });
  expect(res.body.data!.approvalRequests.totalCount).toBe(0);
});
