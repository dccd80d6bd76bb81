import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import { presenceView } from '../support/presence-view';

/**
 * Presence (issue 30, item 5): who else has an approval open. An open approvalPresence
 * subscription is a view; every view of the approval is told who is looking, at once and
 * after each change. Org-scoped: another org's key is refused as for an unknown approval and
 * never appears; the roles that do not read approvals are refused.
 */

let app: TestApp;
let owner: TestOrg;
let other: TestOrg;
let approvalId: string;
const names: Record<string, string> = {};
beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em());
  other = await newOrg(app.em());
  const run = await newRun(app.em(), owner, { status: 'waiting_approval' });
  const { approval } = await newToolCall(app.em(), owner, run, { status: 'waiting_approval', approval: { kind: 'expert' } });
  approvalId = approval!.id;
  const keys = await app
    .em()
    .execute<{ role: string; name: string | null; prefix: string }[]>('select role, name, prefix from api_keys where org_id = ?', [owner.org.id]);
  for (const key of keys) names[key.role] = key.name ?? `${key.role} key ${key.prefix}`;
});
afterAll(async () => app?.close());

test('two reviewers on one approval see each other, a third org sees nothing, and a closed view leaves', async () => {
  const expert = presenceView(app, owner.keys.expert, approvalId);
  await expert.seeing([names.expert]);
  expect(expert.last()).toEqual({ approvalId, viewers: [{ name: names.expert, role: 'expert', you: true }] });

  const admin = presenceView(app, owner.keys.admin, approvalId);
  await admin.seeing([names.expert, names.admin]);
  await expert.seeing([names.expert, names.admin]);
  expect(admin.last()!.viewers.filter((v) => v.you)).toEqual([{ name: names.admin, role: 'admin', you: true }]);

  // Another org's expert, with the same approval id: refused as an unknown approval, and never counted.
  const outsider = presenceView(app, other.keys.expert, approvalId);
  await outsider.failed();
  expect(outsider.snapshots).toEqual([]);
  expect(JSON.stringify(outsider.errors)).toContain('NOT_FOUND');

  await admin.close();
  await expert.seeing([names.expert]);
  const seen = expert.snapshots.flatMap((s) => s.viewers.map((v) => v.name));
  expect(seen.filter((name) => name !== names.expert && name !== names.admin)).toEqual([]);
  await expert.close();
  await outsider.close();
});

test('roles that do not read approvals are refused, and a client only sees approvals of the runs it reads', async () => {
  for (const role of ['agent', 'partner'] as const) {
    const refused = presenceView(app, owner.keys[role], approvalId);
    await refused.failed();
    expect(JSON.stringify(refused.errors)).toContain('FORBIDDEN');
    await refused.close();
  }
  // An expert approval of a run the client did not start: not one the client reads.
  const client = presenceView(app, owner.keys.client, approvalId);
  await client.failed();
  expect(JSON.stringify(client.errors)).toContain('NOT_FOUND');
  await client.close();
});
