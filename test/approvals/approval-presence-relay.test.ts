import pino from 'pino';
import { ApprovalPresence } from '../../src/approvals/approval-presence';
import { ApprovalPresenceRelay } from '../../src/approvals/approval-presence-relay';
import type { BusChannel } from '../../src/realtime/event-bus';
import { InProcessBus } from '../../src/realtime/in-process-bus';
import { ManualClock } from '../support/clock';

/**
 * The presence relay on one in-process bus shared by several "nodes", each on its own manual
 * clock: what crosses the bus, heartbeats keeping a live node's views, expiry of a silent
 * node's, the sync of a late node, and repair after a lost message. Deterministic: delivery
 * is awaited, time is moved.
 */
const HEARTBEAT_MS = 1000;
const ORG = 'org-1';
const APPROVAL = 'approval-1';

class SharedBus extends InProcessBus {
  readonly sent: { channel: BusChannel; message: string }[] = [];
  /** Messages dropped on the way, as an outage would. */
  dropping = false;

  override async publish(channel: BusChannel, message: string): Promise<void> {
    this.sent.push({ channel, message });
    if (!this.dropping) await super.publish(channel, message);
  }
}

/** A bus handle of one node: closing it is that node's bus going away (it neither hears nor sends), not everyone's. */
function handleOf(bus: SharedBus): SharedBus {
  const unsubscribes: (() => Promise<void>)[] = [];
  let closed = false;
  return Object.assign(Object.create(bus) as SharedBus, {
    async publish(channel: BusChannel, message: string) {
      if (closed) throw new Error('bus closed');
      await bus.publish(channel, message);
    },
    async subscribe(channel: BusChannel, handler: (message: string) => void) {
      const unsubscribe = await bus.subscribe(channel, handler);
      unsubscribes.push(unsubscribe);
      return unsubscribe;
    },
    async close() {
      closed = true;
      for (const unsubscribe of unsubscribes) await unsubscribe();
    },
  });
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const logger = pino({ level: 'silent' });

async function node(bus: SharedBus) {
  const clock = new ManualClock(0);
  const presence = new ApprovalPresence();
  const handle = handleOf(bus);
  const relay = new ApprovalPresenceRelay(presence, handle, clock, HEARTBEAT_MS, logger);
  await relay.start();
  await settle();
  const names = (orgId = ORG, approvalId = APPROVAL) =>
    presence
      .viewers(orgId, approvalId)
      .map((v) => v.name)
      .sort();
  return { clock, presence, relay, handle, names };
}

test("a node's views reach the others with names and roles only, scoped to their org and approval", async () => {
  const bus = new SharedBus();
  const a = await node(bus);
  const b = await node(bus);
  const mine = a.presence.join(ORG, APPROVAL, { name: 'Ann', role: 'expert' });
  b.presence.join('org-2', APPROVAL, { name: 'Bob', role: 'admin' });
  await settle();
  expect(b.names()).toEqual(['Ann']);
  expect(a.names()).toEqual(['Ann']);
  expect(a.names('org-2')).toEqual(['Bob']);
  expect(b.names(ORG, 'approval-2')).toEqual([]);

  const joins = bus.sent.map((s) => JSON.parse(s.message)).filter((m) => m.k === 'join');
  for (const join of joins) expect(Object.keys(join).sort()).toEqual(['a', 'k', 'n', 'name', 'o', 'role', 'v']);
  expect(bus.sent.every((s) => s.channel === 'presence' && Buffer.byteLength(s.message) < 400)).toBe(true);

  mine.leave();
  await settle();
  expect(b.names()).toEqual([]);
  await a.relay.stop();
  await b.relay.stop();
});

test("a live node's heartbeats keep its views; a silent one's go after two heartbeats; a goodbye drops them at once", async () => {
  const bus = new SharedBus();
  const a = await node(bus);
  const b = await node(bus);
  const c = await node(bus);
  a.presence.join(ORG, APPROVAL, { name: 'Ann', role: 'expert' });
  b.presence.join(ORG, APPROVAL, { name: 'Bob', role: 'admin' });
  c.presence.join(ORG, APPROVAL, { name: 'Cy', role: 'admin' });
  await settle();
  expect(a.names()).toEqual(['Ann', 'Bob', 'Cy']);

  // Everyone heartbeats for five periods: nothing expires.
  for (let beat = 0; beat < 5; beat++) {
    for (const n of [a, b, c]) n.clock.advance(HEARTBEAT_MS);
    await settle();
  }
  expect(a.names()).toEqual(['Ann', 'Bob', 'Cy']);

  // B goes silent (killed): A still counts it one heartbeat later, not two.
  await b.handle.close();
  b.clock.advance(10 * HEARTBEAT_MS);
  a.clock.advance(HEARTBEAT_MS);
  c.clock.advance(HEARTBEAT_MS);
  await settle();
  expect(a.names()).toEqual(['Ann', 'Bob', 'Cy']);
  a.clock.advance(HEARTBEAT_MS);
  c.clock.advance(HEARTBEAT_MS);
  await settle();
  expect(a.names()).toEqual(['Ann', 'Cy']);

  // C stops cleanly: gone at once.
  await c.relay.stop();
  await settle();
  expect(a.names()).toEqual(['Ann']);
  await a.relay.stop();
});

test('a node that starts late learns who is already looking, and a lost message is repaired by the next heartbeat', async () => {
  const bus = new SharedBus();
  const a = await node(bus);
  a.presence.join(ORG, APPROVAL, { name: 'Ann', role: 'expert' });
  const annToo = a.presence.join(ORG, APPROVAL, { name: 'Ann', role: 'expert' });
  await settle();
  const late = await node(bus);
  expect(late.names()).toEqual(['Ann', 'Ann']);

  // A leave lost on the way: the next heartbeat's count disagrees; the late node starts A over.
  bus.dropping = true;
  annToo.leave();
  await settle();
  bus.dropping = false;
  expect(late.names()).toEqual(['Ann', 'Ann']);
  a.clock.advance(HEARTBEAT_MS);
  await settle();
  expect(late.names()).toEqual(['Ann']);

  // A join lost on the way: repaired the same way.
  bus.dropping = true;
  a.presence.join(ORG, APPROVAL, { name: 'Abe', role: 'admin' });
  await settle();
  bus.dropping = false;
  a.clock.advance(HEARTBEAT_MS);
  await settle();
  expect(late.names()).toEqual(['Abe', 'Ann']);

  // Malformed or foreign messages change nothing.
  for (const junk of ['not json', '{"k":"join","n":"x","v":"v","o":"org-1","a":"approval-1","name":"Eve","role":"root"}', '{"k":"bye"}']) {
    await bus.publish('presence', junk);
  }
  await settle();
  expect(late.names()).toEqual(['Abe', 'Ann']);
  await a.relay.stop();
  await late.relay.stop();
});
