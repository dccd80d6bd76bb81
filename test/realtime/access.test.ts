import { randomBytes } from 'node:crypto';
import { useDemoApp } from '../support/demo-fixture';
import { newOrg, newRun, type TestOrg } from '../support/factories';
import { createKey } from '../../src/orgs/org.service';
import { Feed, approvals, bounded, closeSockets, connect, ledgerHead, runEvents, tokens, toolCalls } from './realtime-helpers';

/**
 * Who may subscribe to what: the key is checked at connection_init (4403 otherwise),
 * roles and org per subscription, the key again per event, and the HTTP query limits
 * apply to subscription operations too.
 */
let other: TestOrg;

const demo = useDemoApp({}, { sandboxes: true });
beforeAll(async () => {
  other = await newOrg(demo.app.em(), 'Other Org');
});
afterEach(async () => closeSockets());

const lookup = (runId: string) => demo.gw.execute(runId, 'order_lookup', 'lookup', { orderId: '12345' });

describe('connection_init', () => {
  test.each([
    ['an unknown key', `tg_admin_${randomBytes(24).toString('base64url')}`],
    ['a malformed value', 'Bearer'],
  ])('%s closes the socket with 4403', async (_name, key) => {
    const socket = connect(demo.app.wsUrl, key);
    const feed = runEvents(socket.client, '00000000-0000-0000-0000-000000000000', '0');
    await feed.end();
    expect((feed.error as { code: number }).code).toBe(4403);
    expect((await bounded(socket.closed, 'the close event')).code).toBe(4403);
    expect(feed.items).toEqual([]);
  });

  test('no authorization at all closes the socket with 4403', async () => {
    const socket = connect(demo.app.wsUrl, null);
    approvals(socket.client, 'expert');
    expect((await bounded(socket.closed, 'the close event')).code).toBe(4403);
  });

  test('a revoked key closes the socket with 4403', async () => {
    const key = await createKey(demo.app.em(), demo.seed.orgId, 'expert');
    await demo.app.em().execute('update api_keys set revoked_at = now() where id = ?', [key.id]);
    const socket = connect(demo.app.wsUrl, key.secret);
    approvals(socket.client, 'expert');
    expect((await bounded(socket.closed, 'the close event')).code).toBe(4403);
  });
});

describe('roles and orgs', () => {
  test('an expert key may follow any run; partner and agent keys may not watch the approval queue (FORBIDDEN)', async () => {
    const run = await demo.gw.startRun();
    const events = runEvents(connect(demo.app.wsUrl, demo.seed.keys.expert).client, run.id, '0');
    await events.count(2, 'the run events');
    expect(events.items.map((e) => e.type)).toEqual(['run.created', 'run.started']);

    for (const role of ['partner', 'agent'] as const) {
      const feed = approvals(connect(demo.app.wsUrl, demo.seed.keys[role]).client, 'expert');
      await feed.end(`the ${role} subscription to be refused`);
      expect(feed.errorCodes).toEqual(['FORBIDDEN']);
    }
    // Allowed: each desk sees a request raised after it subscribed (a client only in the runs it
    // reads, test/api/run-ownership.test.ts; this expert approval is in an agent's run).
    for (const role of ['admin', 'expert'] as const) {
      const feed = approvals(connect(demo.app.wsUrl, demo.seed.keys[role]).client, null, await ledgerHead(demo.app, demo.seed.orgId));
      const invoice = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 10 });
      await feed.until((f) => f.items.some((c) => c.approvalRequest?.id === invoice.approvalRequestId), `the ${role} desk to see the request`);
      expect(feed.error).toBeNull();
    }
  });

  test("another org's run is NOT_FOUND for runEvents, toolCallStatusChanged and runTokens", async () => {
    const foreign = await newRun(demo.app.em(), other);
    const { client } = connect(demo.app.wsUrl, demo.seed.keys.admin);
    const feeds: Feed<unknown>[] = [
      runEvents(client, foreign.id, '0'),
      toolCalls(client, foreign.id, '0'),
      tokens(client, foreign.id),
      runEvents(client, 'not-a-uuid', '0'),
    ];
    for (const feed of feeds) {
      await feed.end();
      expect(feed.errorCodes).toEqual(['NOT_FOUND']);
      expect(feed.items).toEqual([]);
    }
    // The owner sees it.
    const own = runEvents(connect(demo.app.wsUrl, other.keys.expert).client, foreign.id, '0');
    await own.count(1, "the owner's run.created");
    expect(own.items[0]).toMatchObject({ type: 'run.created', runId: foreign.id });
  });
});

describe('access is re-checked per event', () => {
  test('revoking the key mid-subscription ends it with UNAUTHENTICATED on the next event', async () => {
    const key = await createKey(demo.app.em(), demo.seed.orgId, 'expert');
    const run = await demo.gw.startRun();
    const feed = runEvents(connect(demo.app.wsUrl, key.secret).client, run.id, '0');
    await feed.count(2, 'the first events');

    await demo.app.em().execute('update api_keys set revoked_at = now() where id = ?', [key.id]);
    await lookup(run.id);
    await feed.until((f) => f.ended || f.nextErrors.length > 0 || f.items.length > 2, 'the revocation to take effect');
    // Nothing after the revocation reached the revoked key …
    expect(feed.items.map((e) => e.type)).toEqual(['run.created', 'run.started']);
    const codes = [...feed.nextErrors.map((e) => e.extensions?.code), ...feed.errorCodes];
    expect(codes[0]).toBe('UNAUTHENTICATED');
    // … and the subscription is over, not left open to report the same error per event.
    await feed.end('the revoked subscription to end', 3000);
  });
});

describe('the HTTP query limits apply to subscription operations', () => {
  test('too deep: QUERY_TOO_DEEP, and the socket stays usable', async () => {
    const { client } = connect(demo.app.wsUrl, demo.seed.keys.admin);
    const deep = new Feed(
      client,
      'subscription { toolCallStatusChanged { toolCall { run { toolCalls { run { toolCalls { run { toolCalls { id } } } } } } } } }',
      {},
      'toolCallStatusChanged',
    );
    await deep.end();
    expect(deep.errorCodes).toEqual(['QUERY_TOO_DEEP']);

    const run = await demo.gw.startRun();
    const fine = runEvents(client, run.id, '0');
    await fine.count(2, 'a subscription within the limits on the same socket');
  });

  test('too many aliases: TOO_MANY_ALIASES', async () => {
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: id`).join(' ');
    const feed = new Feed(
      connect(demo.app.wsUrl, demo.seed.keys.admin).client,
      `subscription { toolCallStatusChanged { toolCall { ${aliases} } } }`,
      {},
      'toolCallStatusChanged',
    );
    await feed.end();
    expect(feed.errorCodes).toEqual(['TOO_MANY_ALIASES']);
  });
});
