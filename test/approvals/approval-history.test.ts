import { useDemoApp } from '../support/demo-fixture';

/**
 * A history per approval (issue 30, item 3): `ApprovalRequest.history`, drawn from the ledger
 * events of the approval's call — requested → params viewed → resolved (edited or not) — each
 * naming the key (by its name) and the time. Read with a fixed number of statements however
 * many approvals a page holds.
 */
const demo = useDemoApp({}, { sandboxes: true });

const CARD = '4111 1111 1111 1111';
const INVOICE = { customerId: '1', amount: 120.5, description: `Paid by card ${CARD}, as agreed` };
const STORED = { ...INVOICE, description: 'Paid by card [REDACTED], as agreed' };
const REVEAL = 'mutation($id: ID!) { revealApprovalParams(id: $id) { hiddenPaths } }';
const RESOLVE =
  'mutation($id: ID!, $d: ApprovalDecision!, $r: String, $p: JSONObject) { resolveApproval(id: $id, decision: $d, reason: $r, editedParams: $p) { id } }';
const HISTORY = `query($run: ID) { approvalRequests(first: 50, filter: { runId: $run }) { edges { node { id history {
  step at actorKeyId actorRole actorName channel reason edited originalParams editedParams hiddenPaths } } } } }`;

async function pendingInvoice() {
  const run = await demo.gw.startRun();
  const waiting = await demo.gw.execute(run.id, 'invoice', 'send', INVOICE);
  expect(waiting.status).toBe('waiting_approval');
  return { runId: run.id, approvalId: waiting.approvalRequestId! };
}

const keyOf = async (key: string) => (await demo.gw.ok('{ viewer { apiKeyId } }', {}, key)).viewer.apiKeyId as string;
const nameOf = async (id: string) =>
  (
    await demo.app.em().execute<{ name: string | null; role: string; prefix: string }[]>('select name, role, prefix from api_keys where id = ?', [id])
  ).map((k) => k.name ?? `${k.role} key ${k.prefix}`)[0];

test('requested → viewed → approved with an edit: each step with the key by name, the time, the reason and the params before and after', async () => {
  const { runId, approvalId } = await pendingInvoice();
  await demo.gw.ok(REVEAL, { id: approvalId }, demo.seed.keys.expert);
  await demo.gw.ok(RESOLVE, { id: approvalId, d: 'APPROVE', r: 'lowered with the customer', p: { ...STORED, amount: 99 } }, demo.seed.keys.expert);

  const res = await demo.app.gql(HISTORY, { key: demo.seed.keys.expert, variables: { run: runId } });
  expect(res.body.errors).toBeUndefined();
  const [node] = res.body.data!.approvalRequests.edges.map((e: { node: unknown }) => e.node) as { id: string; history: Record<string, unknown>[] }[];
  expect(node.id).toBe(approvalId);
  const agent = await keyOf(demo.seed.keys.agent);
  const expert = await keyOf(demo.seed.keys.expert);
  const base = { channel: null, reason: null, edited: false, originalParams: null, editedParams: null, hiddenPaths: [] };
  expect(node.history).toEqual([
    { ...base, step: 'requested', at: expect.any(String), actorKeyId: agent, actorRole: 'agent', actorName: await nameOf(agent) },
    {
      ...base,
      step: 'params_viewed',
      at: expect.any(String),
      actorKeyId: expert,
      actorRole: 'expert',
      actorName: await nameOf(expert),
      hiddenPaths: ['/description'],
    },
    {
      ...base,
      step: 'approved',
      at: expect.any(String),
      actorKeyId: expert,
      actorRole: 'expert',
      actorName: await nameOf(expert),
      channel: 'graphql',
      reason: 'lowered with the customer',
      edited: true,
      originalParams: STORED,
      editedParams: { ...STORED, amount: 99 },
    },
  ]);
  const times = node.history.map((h) => Date.parse(String(h.at)));
  expect([...times].sort((a, b) => a - b)).toEqual(times);
  expect(JSON.stringify(res.body)).not.toContain(CARD);
});

test("a rejection's note is its reason; an agent has no approval queue (FORBIDDEN)", async () => {
  const { runId, approvalId } = await pendingInvoice();
  await demo.gw.ok(RESOLVE, { id: approvalId, d: 'REJECT', r: 'not this customer' }, demo.seed.keys.expert);
  const res = await demo.app.gql(HISTORY, { key: demo.seed.keys.admin, variables: { run: runId } });
  const steps = res.body.data!.approvalRequests.edges[0].node.history as { step: string; reason: string | null; edited: boolean }[];
  expect(steps.map((s) => [s.step, s.reason, s.edited])).toEqual([
    ['requested', null, false],
    ['rejected', 'not this customer', false],
  ]);
  const agent = await demo.app.gql(HISTORY, { key: demo.seed.keys.agent, variables: { run: runId } });
  expect(agent.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});

test('the history of a page of approvals costs the same statements for 1 or 6 approvals', async () => {
  const page = `query($first: Int) { approvalRequests(first: $first) { edges { node { id history { step actorName } } } } }`;
  const measure = async (first: number) => {
    demo.app.statements.length = 0;
    const res = await demo.app.gql(page, { key: demo.seed.keys.expert, variables: { first } });
    expect(res.body.errors).toBeUndefined();
    return { count: demo.app.statements.length, approvals: res.body.data!.approvalRequests.edges.length as number };
  };
  const one = await pendingInvoice();
  await demo.gw.ok(REVEAL, { id: one.approvalId }, demo.seed.keys.expert);
  const small = await measure(1);
  for (let i = 0; i < 5; i += 1) {
    const p = await pendingInvoice();
    await demo.gw.ok(REVEAL, { id: p.approvalId }, demo.seed.keys.expert);
  }
  const large = await measure(50);
  expect(small.approvals).toBe(1);
  expect(large.approvals).toBeGreaterThanOrEqual(6);
  expect(large.count).toBe(small.count);
});
