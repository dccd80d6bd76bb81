import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import { socket } from '../support/graphql-http';

/**
 * Presence (issue 30, item 5): who else has an approval open. An open approvalPresence
 * subscription is a view; every view of the approval is told who is looking, at once and
 * after each change. Org-scoped: another org's key is refused as for an unknown approval and
 * never appears; the roles that do not read approvals are refused.
 */
const PRESENCE = 'subscription($id: ID!) { approvalPresence(approvalId: $id) { approvalId viewers { name role you } } }';

interface Snapshot {
  approvalId: string;
  viewers: { name: string; role: string; you: boolean }[];
}

/** One view: every snapshot it was sent, its errors, and a wait for a snapshot that satisfies a test. */
function view(app: TestApp, key: string, approvalId: string) {
  const ws = socket(app.wsUrl, key);
  const snapshots: Snapshot[] = [];
  const errors: { extensions?: { code?: string } }[][] = [];
  const waiters: (() => void)[] = [];
  const notify = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  ws.client.subscribe<{ approvalPresence: Snapshot }>(
    { query: PRESENCE, variables: { id: approvalId } },
    {
      next: ({ data, errors: failed }) => {
        if (failed) errors.push(failed as never);
        if (data) snapshots.push(data.approvalPresence);
        notify();
      },
      error: (error) => {
        errors.push(error as never);
        notify();
      },
      complete: notify,
    },
  );
  const until = async (ok: () => boolean): Promise<void> => {
    while (!ok()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const last = () => snapshots.at(-1);
  return {
    snapshots,
    errors,
    last,
    /** Waits for the snapshot that names exactly these viewers (sorted names). */
    seeing: (names: string[]) =>
      until(
        () =>
          JSON.stringify(
            last()
              ?.viewers.map((v) => v.name)
              .sort(),
          ) === JSON.stringify([...names].sort()),
      ),
    failed: () => until(() => errors.length > 0),
    close: ws.close,
  };
}

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
  const expert = view(app, owner.keys.expert, approvalId);
  await expert.seeing([names.expert]);
  expect(expert.last()).toEqual({ approvalId, viewers: [{ name: names.expert, role: 'expert', you: true }] });

  const admin = view(app, owner.keys.admin, approvalId);
  await admin.seeing([names.expert, names.admin]);
  await expert.seeing([names.expert, names.admin]);
  expect(admin.last()!.viewers.filter((v) => v.you)).toEqual([{ name: names.admin, role: 'admin', you: true }]);

  // Another org's expert, with the same approval id: refused as an unknown approval, and never counted.
  const outsider = view(app, other.keys.expert, approvalId);
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
    const refused = view(app, owner.keys[role], approvalId);
    await refused.failed();
    expect(JSON.stringify(refused.errors)).toContain('FORBIDDEN');
    await refused.close();
  }
  // An expert approval of a run the client did not start: not one the client reads.
  const client = view(app, owner.keys.client, approvalId);
  await client.failed();
  expect(JSON.stringify(client.errors)).toContain('NOT_FOUND');
  await client.close();
});
