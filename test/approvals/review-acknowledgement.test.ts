import { errorCode } from '../support/app';
import { useDemoApp } from '../support/demo-fixture';
import { Feed, closeSockets, connect, ledgerHead } from '../realtime/realtime-helpers';

/**
 * Review items (issue 30, item 4): a call flagged for review — here observed by policy —
 * arrives live on the approval queue's subscription for audit roles, and a reviewer
 * acknowledges it with a note: once, recorded in the ledger with the key and the note, the
 * call leaving the review queue (on every reviewer's screen: the subscription says so).
 */
const demo = useDemoApp({}, { sandboxes: true });

const ACK =
  'mutation($id: ID!, $note: String) { acknowledgeReview(toolCallId: $id, note: $note) { id status reviewRequired reviewAcknowledgedAt reviewAcknowledgedBy reviewNote } }';
const QUEUE = '{ toolCalls(first: 100, filter: { reviewRequired: true, reviewAcknowledged: false }) { edges { node { id } } } }';
const FEED = 'subscription($after: String) { approvalRequests(afterSequence: $after) { change toolCall { id reviewRequired reviewNote } } }';

beforeAll(async () => {
  await demo.gw.ok('mutation($i: PolicyRuleInput!) { upsertPolicyRule(input: $i) { id } }', {
    i: {
      name: 'Tiny invoices are observed',
      position: 1,
      toolPattern: 'invoice',
      actionPattern: 'send',
      conditions: [{ path: 'amount', op: 'lt', value: 50 }],
      risk: 'low',
      decision: 'observe',
    },
  });
});
afterAll(closeSockets);

async function observedCall(): Promise<{ runId: string; toolCallId: string }> {
  const run = await demo.gw.startRun();
  const answer = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 20 });
  expect(answer.status).toBe('succeeded');
  return { runId: run.id, toolCallId: answer.toolCallId };
}

const queued = async (key: string) => ((await demo.gw.ok(QUEUE, {}, key)).toolCalls.edges as { node: { id: string } }[]).map((e) => e.node.id);
const keyIdOf = async (key: string) => (await demo.gw.ok('{ viewer { apiKeyId } }', {}, key)).viewer.apiKeyId as string;
const acknowledgements = (toolCallId: string) =>
  demo.app
    .em()
    .execute<{ actor_key_id: string; actor_role: string; run_id: string; metadata: Record<string, unknown> }[]>(
      "select actor_key_id, actor_role, run_id, metadata from ledger_events where resource_id = ? and type = 'tool_call.review_acknowledged' order by sequence",
      [toolCallId],
    );

test('an observed call arrives live for review; acknowledged with a note it leaves the queue, live, and the ledger names the key and the note', async () => {
  const feed = new Feed<{ change: string; toolCall: { id: string; reviewRequired: boolean; reviewNote: string | null } }>(
    connect(demo.app.wsUrl, demo.seed.keys.admin).client,
    FEED,
    { after: await ledgerHead(demo.app, demo.seed.orgId) },
    'approvalRequests',
  );
  const { runId, toolCallId } = await observedCall();
  await feed.until((f) => f.items.some((i) => i.change === 'review_required' && i.toolCall.id === toolCallId), 'the review item');
  expect(await queued(demo.seed.keys.expert)).toContain(toolCallId);

  const res = await demo.app.gql(ACK, { key: demo.seed.keys.expert, variables: { id: toolCallId, note: '  Checked with the customer: fine.  ' } });
  expect(res.body.errors).toBeUndefined();
  const expert = await keyIdOf(demo.seed.keys.expert);
  expect(res.body.data!.acknowledgeReview).toMatchObject({
    id: toolCallId,
    status: 'succeeded',
    reviewRequired: true,
    reviewAcknowledgedBy: expert,
    reviewNote: 'Checked with the customer: fine.',
  });
  expect(res.body.data!.acknowledgeReview.reviewAcknowledgedAt).toEqual(expect.any(String));
  await feed.until((f) => f.items.some((i) => i.change === 'review_acknowledged' && i.toolCall.id === toolCallId), 'the acknowledgement');
  expect(feed.items.find((i) => i.change === 'review_acknowledged')!.toolCall).toEqual({
    id: toolCallId,
    reviewRequired: true,
    reviewNote: 'Checked with the customer: fine.',
  });
  expect(await queued(demo.seed.keys.expert)).not.toContain(toolCallId);
  expect(await acknowledgements(toolCallId)).toEqual([
    {
      actor_key_id: expert,
      actor_role: 'expert',
      run_id: runId,
      metadata: { tool: 'invoice.send', note: 'Checked with the customer: fine.', acknowledgedBy: { keyId: expert, role: 'expert' } },
    },
  ]);

  // Once only: a second acknowledgement (another reviewer) is refused and records nothing.
  const again = await demo.app.gql(ACK, { key: demo.seed.keys.admin, variables: { id: toolCallId, note: 'me too' } });
  expect(errorCode(again)).toBe('REVIEW_ALREADY_ACKNOWLEDGED');
  expect(await acknowledgements(toolCallId)).toHaveLength(1);
});

test('bad input gets a stable code and changes nothing: a call not flagged, a missing call, a long note; other roles are refused', async () => {
  const { toolCallId } = await observedCall();
  const events = await demo.gw.count('ledger_events');
  const plain = await demo.gw.startRun();
  const waiting = await demo.gw.execute(plain.id, 'invoice', 'send', { customerId: '1', amount: 120.5 });
  expect(waiting.status).toBe('waiting_approval');
  const eventsAfterPlain = await demo.gw.count('ledger_events');
  expect(eventsAfterPlain).toBeGreaterThan(events);

  const lookup = await demo.app.gql(ACK, { key: demo.seed.keys.expert, variables: { id: '00000000-0000-0000-0000-000000000000' } });
  expect(errorCode(lookup)).toBe('NOT_FOUND');
  expect(errorCode(await demo.app.gql(ACK, { key: demo.seed.keys.expert, variables: { id: 'nope' } }))).toBe('NOT_FOUND');
  const long = await demo.app.gql(ACK, { key: demo.seed.keys.expert, variables: { id: toolCallId, note: 'x'.repeat(2001) } });
  expect(errorCode(long)).toBe('BAD_USER_INPUT');
  expect(String(long.body.errors![0].extensions?.field)).toMatch(/note$/);
  for (const role of ['client', 'partner', 'agent'] as const) {
    expect([role, errorCode(await demo.app.gql(ACK, { key: demo.seed.keys[role], variables: { id: toolCallId } }))]).toEqual([role, 'FORBIDDEN']);
  }
  expect(await demo.gw.count('ledger_events')).toBe(eventsAfterPlain);
  expect(await queued(demo.seed.keys.admin)).toContain(toolCallId);

  // A call nobody flagged (an approval-required invoice is not a review item).
  const notFlagged = await demo.app.gql(ACK, { key: demo.seed.keys.expert, variables: { id: waiting.toolCallId } });
  expect(errorCode(notFlagged)).toBe('REVIEW_NOT_REQUIRED');
  expect(await demo.gw.count('ledger_events')).toBe(eventsAfterPlain);

  // Without a note is fine.
  const bare = await demo.app.gql(ACK, { key: demo.seed.keys.admin, variables: { id: toolCallId } });
  expect(bare.body.data!.acknowledgeReview).toMatchObject({ reviewNote: null, reviewAcknowledgedBy: await keyIdOf(demo.seed.keys.admin) });
});
