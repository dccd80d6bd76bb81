import { errorCode, startTestApp, type GraphQLResponse, type TestApp } from '../support/app';
import { ManualClock } from '../support/clock';
import { newOrg, newRun, type TestOrg } from '../support/factories';
import { ApiKeysDocument, CreateApiKeyDocument, RevokeApiKeyDocument, ViewerDocument } from '../../gql/graphql';
import { suspendOrg, resumeOrg } from '../../src/orgs/org-suspension.service';
import { publishWithdrawal } from '../../src/auth/key-access';
import { KEY_USAGE_FLUSH_MS } from '../../src/auth/key-usage';
import { runtimeCaller } from '../../src/auth/caller';
import { AppError } from '../../src/errors/app-error';

/**
 * The key lifecycle over the API: listed without secrets, issued with the secret once,
 * revoked, expired on the access clock, `lastUsedAt` written in batches, and an org's
 * suspension refusing every key of it and every tool call of its runs.
 */
let app: TestApp;
let owner: TestOrg;
let other: TestOrg;
const clock = new ManualClock();

beforeAll(async () => {
  app = await startTestApp({}, { accessClock: clock });
  owner = await newOrg(app.em(), 'Keys Org');
  other = await newOrg(app.em(), 'Other Keys Org');
});
afterAll(async () => app?.close());

async function count(sql: string, params: unknown[]): Promise<number> {
  const [row] = await app.em().execute<{ n: string }[]>(`select count(*) as n from (${sql}) as counted`, params);
  return Number(row.n);
}

const ledgerTypes = async (orgId: string, type: string) =>
  app
    .em()
    .execute<{ resource_id: string; metadata: Record<string, unknown>; actor_role: string | null }[]>(
      'select resource_id, metadata, actor_role from ledger_events where org_id = ? and type = ? order by sequence',
      [orgId, type],
    );

async function issue(variables: { role: string; name?: string | null; expiresAt?: string | null }, key = owner.keys.admin) {
  return app.gql(CreateApiKeyDocument, { key, variables: variables as never });
}

function ok<T>(res: GraphQLResponse<T>): T {
  expect(res.body.errors).toBeUndefined();
  return res.body.data!;
}

describe('createApiKey and apiKeys', () => {
  test('the secret is answered once, works, and no listing ever carries it', async () => {
    const expiresAt = new Date(clock.now() + 86_400_000).toISOString();
    const created = ok(await issue({ role: 'expert', name: 'dashboard', expiresAt })).createApiKey;
    expect(created.secret).toMatch(/^tg_expert_/);
    expect(created.apiKey).toMatchObject({ role: 'expert', name: 'dashboard', expiresAt });
    expect(created.secret.startsWith(created.apiKey.prefix)).toBe(true);

    const viewer = ok(await app.gql(ViewerDocument, { key: created.secret })).viewer;
    expect(viewer).toMatchObject({ role: 'expert', apiKeyId: created.apiKey.id });

    const listed = await app.gql(ApiKeysDocument, { key: owner.keys.admin, variables: { first: 100 } });
    const nodes = ok(listed).apiKeys.edges.map((e) => e.node);
    expect(nodes.find((n) => n.id === created.apiKey.id)).toMatchObject({ role: 'expert', name: 'dashboard', expiresAt, revokedAt: null });
    // Only this org's keys, newest first: the first admin key, one per role, and the new one.
    expect(nodes).toHaveLength(6);
    expect(nodes[0].id).toBe(created.apiKey.id);
    expect(JSON.stringify(listed.body)).not.toContain(created.secret.slice(created.apiKey.prefix.length));
    expect(ok(listed).apiKeys.totalCount).toBe(6);

    const [event] = (await ledgerTypes(owner.org.id, 'api_key.created')).filter((e) => e.resource_id === created.apiKey.id);
    expect(event).toMatchObject({ actor_role: 'admin', metadata: { role: 'expert', name: 'dashboard', expiresAt } });
  });

  test('pages with a cursor', async () => {
    const first = ok(await app.gql(ApiKeysDocument, { key: owner.keys.admin, variables: { first: 2 } })).apiKeys;
    expect(first.edges).toHaveLength(2);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const rest = ok(await app.gql(ApiKeysDocument, { key: owner.keys.admin, variables: { first: 100, after: first.pageInfo.endCursor } })).apiKeys;
    const ids = [...first.edges, ...rest.edges].map((e) => e.node.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(first.totalCount);
  });

  test.each([
    ['an unknown role', 'BAD_USER_INPUT', { role: 'root' }],
    ['a name over 200 characters', 'BAD_USER_INPUT', { role: 'client', name: 'n'.repeat(201) }],
    ['a blank name', 'BAD_USER_INPUT', { role: 'client', name: '   ' }],
    ['an expiry in the past', 'BAD_USER_INPUT', { role: 'client', expiresAt: new Date(clock.now() - 1000).toISOString() }],
    ['an expiry now', 'BAD_USER_INPUT', { role: 'client', expiresAt: new Date(clock.now()).toISOString() }],
  ])('%s is refused with %s and changes nothing', async (_name, code, variables) => {
    const before = await count('select 1 from api_keys where org_id = ?', [owner.org.id]);
    const events = await count('select 1 from ledger_events where org_id = ?', [owner.org.id]);
    const res = await issue(variables);
    expect(errorCode(res)).toBe(code);
    expect(await count('select 1 from api_keys where org_id = ?', [owner.org.id])).toBe(before);
    expect(await count('select 1 from ledger_events where org_id = ?', [owner.org.id])).toBe(events);
  });

  test.each(['expert', 'client', 'partner', 'agent'] as const)('%s keys may neither list, create nor revoke keys (FORBIDDEN)', async (role) => {
    const key = owner.keys[role];
    expect(errorCode(await app.gql(ApiKeysDocument, { key }))).toBe('FORBIDDEN');
    expect(errorCode(await issue({ role: 'admin' }, key))).toBe('FORBIDDEN');
    const [target] = await app.em().execute<{ id: string }[]>('select id from api_keys where org_id = ? limit 1', [owner.org.id]);
    expect(errorCode(await app.gql(RevokeApiKeyDocument, { key, variables: { id: target.id } }))).toBe('FORBIDDEN');
  });
});

describe('revokeApiKey', () => {
  test("another org's key is NOT_FOUND, like none, and stays valid", async () => {
    const [foreign] = await app.em().execute<{ id: string }[]>("select id from api_keys where org_id = ? and role = 'client'", [other.org.id]);
    for (const id of [foreign.id, '00000000-0000-0000-0000-000000000000', 'not-a-uuid']) {
      const res = await app.gql(RevokeApiKeyDocument, { key: owner.keys.admin, variables: { id } });
      expect(errorCode(res)).toBe('NOT_FOUND');
    }
    expect(ok(await app.gql(ViewerDocument, { key: other.keys.client })).viewer.role).toBe('client');
  });

  test('the key is refused at once (401), recorded once; revoking it again changes nothing', async () => {
    const created = ok(await issue({ role: 'client', name: 'to revoke' })).createApiKey;
    expect(ok(await app.gql(ViewerDocument, { key: created.secret })).viewer.role).toBe('client');

    const revoked = ok(await app.gql(RevokeApiKeyDocument, { key: owner.keys.admin, variables: { id: created.apiKey.id } })).revokeApiKey;
    expect(revoked.revokedAt).not.toBeNull();
    const refused = await app.gql(ViewerDocument, { key: created.secret });
    expect(refused.status).toBe(401);
    expect(errorCode(refused)).toBe('UNAUTHENTICATED');

    const again = ok(await app.gql(RevokeApiKeyDocument, { key: owner.keys.admin, variables: { id: created.apiKey.id } })).revokeApiKey;
    expect(again.revokedAt).toBe(revoked.revokedAt);
    const events = (await ledgerTypes(owner.org.id, 'api_key.revoked')).filter((e) => e.resource_id === created.apiKey.id);
    expect(events).toEqual([{ resource_id: created.apiKey.id, actor_role: 'admin', metadata: { role: 'client', reason: 'revoked' } }]);
  });
});

describe('expiry, on the access clock', () => {
  test('a key works until its expiresAt and is UNAUTHENTICATED from then on', async () => {
    const created = ok(await issue({ role: 'client', expiresAt: new Date(clock.now() + 60_000).toISOString() })).createApiKey;
    clock.advance(59_999);
    expect(ok(await app.gql(ViewerDocument, { key: created.secret })).viewer.role).toBe('client');
    clock.advance(1);
    const refused = await app.gql(ViewerDocument, { key: created.secret });
    expect(refused.status).toBe(401);
    expect(errorCode(refused)).toBe('UNAUTHENTICATED');
  });
});

describe('lastUsedAt', () => {
  test('uses are noted in memory and written in one UPDATE per flush interval, not per request', async () => {
    const created = ok(await issue({ role: 'client', name: 'usage' })).createApiKey;
    await app.services.keys.usage.flush(); // the admin's own use so far
    const statementsBefore = app.statements.length;
    for (let i = 0; i < 5; i++) ok(await app.gql(ViewerDocument, { key: created.secret }));
    const lastUse = clock.now();
    const updates = () => app.statements.slice(statementsBefore).filter((sql) => /update api_keys k set last_used_at/.test(sql));
    expect(updates()).toEqual([]);
    expect(await count('select 1 from api_keys where id = ? and last_used_at is not null', [created.apiKey.id])).toBe(0);

    clock.advance(KEY_USAGE_FLUSH_MS); // the flush timer fires …
    await app.services.keys.usage.flush(); // … and this waits for its write
    expect(updates()).toHaveLength(1);
    const [row] = await app.em().execute<{ last_used_at: Date }[]>('select last_used_at from api_keys where id = ?', [created.apiKey.id]);
    expect(new Date(row.last_used_at).getTime()).toBe(lastUse);
    const listed = ok(await app.gql(ApiKeysDocument, { key: owner.keys.admin, variables: { first: 100 } })).apiKeys.edges;
    expect(listed.find((e) => e.node.id === created.apiKey.id)?.node.lastUsedAt).toBe(new Date(lastUse).toISOString());
  });
});

describe('org suspension', () => {
  let suspended: TestOrg;
  beforeAll(async () => {
    suspended = await newOrg(app.em(), 'Suspended Org');
  });

  test('every key of the org is refused with ORG_SUSPENDED (403, GraphQL and MCP), recorded in the ledger; other orgs are untouched; resume restores', async () => {
    const { changed } = await suspendOrg(app.em(), suspended.org.id, 'unpaid invoices');
    expect(changed).toBe(true);
    for (const role of ['admin', 'client', 'agent'] as const) {
      const res = await app.gql(ViewerDocument, { key: suspended.keys[role] });
      expect(res.status).toBe(403);
      expect(errorCode(res)).toBe('ORG_SUSPENDED');
    }
    expect(ok(await app.gql(ViewerDocument, { key: other.keys.client })).viewer.role).toBe('client');
    // MCP too: refused before any run is bound.
    const mcp = await fetch(`${new URL(app.url).origin}/mcp/specialists/${suspended.specialist.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${suspended.keys.agent}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(mcp.status).toBe(403);
    expect(((await mcp.json()) as { error: { data: { code: string } } }).error.data.code).toBe('ORG_SUSPENDED');
    expect((await suspendOrg(app.em(), suspended.org.id, null)).changed).toBe(false);

    expect((await resumeOrg(app.em(), suspended.org.id)).changed).toBe(true);
    expect(ok(await app.gql(ViewerDocument, { key: suspended.keys.client })).viewer.role).toBe('client');
    expect((await ledgerTypes(suspended.org.id, 'org.suspended')).map((e) => e.metadata)).toEqual([{ reason: 'unpaid invoices' }]);
    expect(await ledgerTypes(suspended.org.id, 'org.resumed')).toHaveLength(1);
  });

  test("the gateway runs no tool call for a suspended org's run, and records nothing", async () => {
    const run = await newRun(app.em(), suspended, { status: 'running' });
    await suspendOrg(app.em(), suspended.org.id, null);
    try {
      const calls = () => count('select 1 from tool_calls where org_id = ?', [suspended.org.id]);
      const call = app.services.gateway.execute({
        runId: run.id,
        toolName: 'order_lookup',
        action: 'lookup',
        params: { orderId: '12345' },
        correlationId: 'suspended',
        toolUseId: 'toolu_suspended',
        caller: runtimeCaller(suspended.org.id),
      });
      await expect(call).rejects.toMatchObject({ code: 'ORG_SUSPENDED' });
      await expect(call).rejects.toBeInstanceOf(AppError);
      expect(await calls()).toBe(0);
    } finally {
      await resumeOrg(app.em(), suspended.org.id);
    }
  });

  test("the agent runtime fails a suspended org's run with ORG_SUSPENDED, calling neither the model nor a tool", async () => {
    const run = await newRun(app.em(), suspended, { status: 'queued' });
    await suspendOrg(app.em(), suspended.org.id, null);
    try {
      await app.services.runtime.step(run.id);
      const [row] = await app
        .em()
        .execute<{ status: string; error_code: string }[]>('select status, error_code from agent_runs where id = ?', [run.id]);
      expect(row).toEqual({ status: 'failed', error_code: 'ORG_SUSPENDED' });
      expect(await count('select 1 from run_messages where run_id = ?', [run.id])).toBe(0);
      expect(await count('select 1 from tool_calls where run_id = ?', [run.id])).toBe(0);
    } finally {
      await resumeOrg(app.em(), suspended.org.id);
    }
  });

  test('the announcement goes on the bus channel access (what `toolgate org suspend` publishes)', async () => {
    const seen: unknown[] = [];
    const stop = app.services.keys.onWithdrawn((w) => seen.push(w));
    try {
      const arrived = new Promise<void>((resolve) => {
        const off = app.services.keys.onWithdrawn(() => {
          off();
          resolve();
        });
      });
      await publishWithdrawal(app.services.realtime.bus, { orgId: suspended.org.id });
      await arrived;
      expect(seen).toEqual([{ orgId: suspended.org.id }]);
    } finally {
      stop();
    }
  });
});
