import { startTestApp, type TestApp } from '../support/app';
import { ManualClock } from '../support/clock';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import { presenceView } from '../support/presence-view';

/**
 * Presence across nodes (issue 30): reviewers whose websockets reach different nodes see
 * each other ("Also looking"). Two app instances on one database, with the PostgreSQL bus and
 * with Redis (127.0.0.1:6379, as test/realtime/two-nodes.test.ts needs it);
 * each node's presence heartbeat runs on its own manual clock, so the expiry of a node that
 * died without a goodbye is reached by moving the clock, never by sleeping.
 */
const HEARTBEAT_MS = 1000;
const env = { PRESENCE_HEARTBEAT_MS: String(HEARTBEAT_MS) };

describe.each(['postgres', 'redis'] as const)('%s bus', (bus) => {
  let db: TestDatabase;
  let nodeA: TestApp;
  let nodeB: TestApp;
  let nodeC: TestApp | null = null;
  const clockA = new ManualClock();
  const clockB = new ManualClock();
  let owner: TestOrg;
  let approvalId: string;
  const names: Record<string, string> = {};

  beforeAll(async () => {
    db = await createTestDatabase();
    nodeA = await startTestApp(env, { database: db, eventBus: bus, presenceClock: clockA });
    nodeB = await startTestApp(env, { database: db, eventBus: bus, presenceClock: clockB });
    owner = await newOrg(nodeA.em());
    const run = await newRun(nodeA.em(), owner, { status: 'waiting_approval' });
    const { approval } = await newToolCall(nodeA.em(), owner, run, { status: 'waiting_approval', approval: { kind: 'expert' } });
    approvalId = approval!.id;
    const keys = await nodeA
      .em()
      .execute<{ role: string; name: string | null; prefix: string }[]>('select role, name, prefix from api_keys where org_id = ?', [owner.org.id]);
    for (const key of keys) names[key.role] = key.name ?? `${key.role} key ${key.prefix}`;
  });
  afterAll(async () => {
    await nodeC?.close();
    await nodeA?.close();
    await nodeB?.close();
    await db?.drop();
  });

  test('a reviewer on node A sees who opens the approval on node B, sees them leave, and sees them vanish when B dies silently', async () => {
    const onA = presenceView(nodeA, owner.keys.expert, approvalId);
    await onA.seeing([names.expert]);

    // Node B's reviewer: both see each other, each marked `you` only on its own view.
    const onB = presenceView(nodeB, owner.keys.admin, approvalId);
    await onA.seeing([names.expert, names.admin]);
    await onB.seeing([names.expert, names.admin]);
    expect(onA.last()!.viewers.filter((v) => v.you)).toEqual([{ name: names.expert, role: 'expert', you: true }]);
    expect(onB.last()!.viewers.filter((v) => v.you)).toEqual([{ name: names.admin, role: 'admin', you: true }]);

    // B's subscription ends: A is told.
    await onB.close();
    await onA.seeing([names.expert]);

    // A node started later asks for a sync and learns who is already looking.
    const again = presenceView(nodeB, owner.keys.admin, approvalId);
    await onA.seeing([names.expert, names.admin]);
    nodeC = await startTestApp(env, { database: db, eventBus: bus, presenceClock: new ManualClock() });
    const onC = presenceView(nodeC, owner.keys.expert, approvalId);
    await onC.seeing([names.expert, names.admin, names.expert]);
    await onA.seeing([names.expert, names.admin, names.expert]);
    await onC.close();
    await onA.seeing([names.expert, names.admin]);

    // Node B dies without a goodbye (its bus gone, its heartbeat stopped): its view lingers on A
    // until two heartbeats went by without B, then vanishes.
    await nodeB.services.realtime.bus.close();
    clockA.advance(HEARTBEAT_MS);
    expect(nodeA.services.realtime.presence.viewers(owner.org.id, approvalId).map((v) => v.name)).toEqual([names.expert, names.admin]);
    clockA.advance(2 * HEARTBEAT_MS);
    await onA.seeing([names.expert]);
    expect(again.errors).toEqual([]);
    await again.close();
    await onA.close();
  });
});
