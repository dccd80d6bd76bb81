import { randomBytes, randomUUID } from 'node:crypto';
import { errorCode, startTestApp, type GraphQLResponse, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { ApiKey } from '../../src/auth/api-key.entity';
import { hashSecret } from '../../src/auth/api-key.service';
import { ROLES, type Role } from '../../src/auth/roles';
import { createKey } from '../../src/orgs/org.service';

let app: TestApp;
let owner: TestOrg;

beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em(), 'Auth Org');
});
afterAll(async () => app?.close());

const VIEWER = '{ viewer { org { id } role apiKeyId } }';

/** Rows an admin mutation could write, for the org. */
async function orgWrites(orgId: string): Promise<Record<string, number>> {
  const tables = ['ledger_events', 'specialists', 'feature_flags', 'tool_permissions', 'tool_specialist_bindings', 'integration_credentials'];
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const [row] = await app.em().execute<{ n: string }[]>(`select count(*) as n from ${table} where org_id = ?`, [orgId]);
    counts[table] = Number(row.n);
  }
  return counts;
}

function expectUnauthenticated(res: GraphQLResponse): void {
  expect(res.status).toBe(401);
  expect(errorCode(res)).toBe('UNAUTHENTICATED');
  expect(res.body.data ?? null).toBeNull();
}

describe('authentication over HTTP', () => {
  test('no Authorization header is 401 UNAUTHENTICATED', async () => {
    expectUnauthenticated(await app.gql(VIEWER));
  });

  test('no key is refused even for introspection and the catalog', async () => {
    expectUnauthenticated(await app.gql('{ __schema { queryType { name } } }'));
    expectUnauthenticated(await app.gql('{ toolCatalog { name } }'));
  });

  test('an unknown key is 401 UNAUTHENTICATED', async () => {
    expectUnauthenticated(await app.gql(VIEWER, { key: `tg_admin_${randomBytes(24).toString('base64url')}` }));
  });

  test.each([
    ['Basic credentials', 'Basic xyz'],
    ['a bare Bearer', 'Bearer'],
    ['Bearer with two tokens', 'Bearer one two'],
  ])('a malformed header (%s) is UNAUTHENTICATED', async (_label, header) => {
    expectUnauthenticated(await app.gql(VIEWER, { headers: { authorization: header } }));
  });

  test('a Basic header carrying a valid key is not accepted as Bearer', async () => {
    expectUnauthenticated(await app.gql(VIEWER, { headers: { authorization: `Basic ${owner.keys.admin}` } }));
  });

  test('the key is accepted bare and with a case-insensitive Bearer scheme', async () => {
    for (const authorization of [owner.keys.admin, `bearer ${owner.keys.admin}`, `Bearer   ${owner.keys.admin}  `]) {
      const res = await app.gql(VIEWER, { headers: { authorization } });
      expect(res.status).toBe(200);
      expect(res.body.data?.viewer.org.id).toBe(owner.org.id);
    }
  });

  test('a revoked key is UNAUTHENTICATED', async () => {
    const issued = await createKey(app.em(), owner.org.id, 'expert');
    const before = await app.gql(VIEWER, { key: issued.secret });
    expect(before.body.data?.viewer.role).toBe('expert');

    const em = app.em();
    const row = await em.findOneOrFail(ApiKey, { id: issued.id });
    row.revokedAt = new Date();
    await em.flush();

    expectUnauthenticated(await app.gql(VIEWER, { key: issued.secret }));
    // Other keys of the org are unaffected.
    expect((await app.gql(VIEWER, { key: owner.keys.expert })).body.data?.viewer.role).toBe('expert');
  });
});

describe('viewer', () => {
  test.each(ROLES)('works for the %s role and reports it', async (role) => {
    const res = await app.gql(VIEWER, { key: owner.keys[role] });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.viewer.org.id).toBe(owner.org.id);
    expect(res.body.data?.viewer.role).toBe(role);
    const [row] = await app.em().execute<{ role: string }[]>('select role from api_keys where id = ?', [res.body.data?.viewer.apiKeyId]);
    expect(row.role).toBe(role);
  });

  test('each org sees only itself', async () => {
    const other = await newOrg(app.em(), 'Other Org');
    const res = await app.gql(VIEWER, { key: other.keys.admin });
    expect(res.body.data?.viewer.org.id).toBe(other.org.id);
    expect(res.body.data?.viewer.org.id).not.toBe(owner.org.id);
  });
});

describe('admin mutations refuse other roles', () => {
  const NON_ADMIN: Role[] = ['expert', 'client', 'partner', 'agent'];
  const mutations: Record<string, (o: TestOrg) => { query: string; variables: Record<string, unknown> }> = {
    createSpecialist: () => ({
      query: 'mutation($name: String!) { createSpecialist(input: { name: $name }) { id } }',
      variables: { name: 'Intruder' },
    }),
    setFeatureFlag: () => ({
      query: 'mutation { setFeatureFlag(key: "tool_calling_enabled", enabled: true) { key enabled } }',
      variables: {},
    }),
    setToolPermission: () => ({
      query: 'mutation { setToolPermission(toolName: "order_lookup", action: "lookup", enabled: true) { enabled } }',
      variables: {},
    }),
    bindToolToSpecialist: (o) => ({
      query: `mutation($id: ID!) {
        bindToolToSpecialist(input: { specialistId: $id, toolName: "order_lookup", action: "lookup" }) { bound }
      }`,
      variables: { id: o.specialist.id },
    }),
    putIntegrationCredential: () => ({
      query: `mutation($config: JSONObject!) {
        putIntegrationCredential(integrationType: "shopify", config: $config) { id }
      }`,
      variables: { config: { accessToken: 'shpat_intruder' } },
    }),
  };
  const cases = Object.keys(mutations).flatMap((name) => NON_ADMIN.map((role) => [name, role] as const));

  test.each(cases)('%s as %s is FORBIDDEN and writes nothing', async (name, role) => {
    const target = await newOrg(app.em());
    const before = await orgWrites(target.org.id);
    const { query, variables } = mutations[name](target);
    const res = await app.gql(query, { key: target.keys[role], variables });
    expect(res.status).toBe(200);
    expect(errorCode(res)).toBe('FORBIDDEN');
    expect(res.body.data ?? null).toBeNull();
    expect(await orgWrites(target.org.id)).toEqual(before);
  });

  test.each(Object.keys(mutations))('%s works for the admin role', async (name) => {
    const target = await newOrg(app.em());
    const { query, variables } = mutations[name](target);
    const res = await app.gql(query, { key: target.keys.admin, variables });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.[name]).toBeTruthy();
  });

  test.each(NON_ADMIN)('org.integrations and org.featureFlags are FORBIDDEN for %s', async (role) => {
    for (const field of ['integrations { id }', 'featureFlags { key }']) {
      const res = await app.gql(`{ viewer { org { id ${field} } } }`, { key: owner.keys[role] });
      expect(errorCode(res)).toBe('FORBIDDEN');
    }
  });

  test.each(['client', 'partner', 'agent'] as Role[])('the ledger is FORBIDDEN for %s', async (role) => {
    const res = await app.gql('{ ledgerEvents { edges { node { id } } } }', { key: owner.keys[role] });
    expect(errorCode(res)).toBe('FORBIDDEN');
  });
});

describe('API key storage', () => {
  test('only a SHA-256 of the secret is stored, never the secret', async () => {
    const rows = await app.em().execute<Record<string, unknown>[]>('select * from api_keys');
    expect(rows.length).toBeGreaterThanOrEqual(ROLES.length);
    const dump = JSON.stringify(rows);
    for (const role of ROLES) {
      const secret = owner.keys[role];
      expect(dump).not.toContain(secret);
      // Nor the random part of it on its own.
      expect(dump).not.toContain(secret.slice(-24));
    }
    const em = app.em();
    const adminRow = await em.findOneOrFail(ApiKey, { orgId: owner.org.id, role: 'admin' });
    expect(adminRow.secretHash).not.toBe(owner.keys.admin);
    expect(adminRow.secretHash).toBe(hashSecret(owner.keys.admin));
    expect(adminRow.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(owner.keys.admin.startsWith(adminRow.prefix)).toBe(true);
    expect(adminRow.prefix.length).toBeLessThan(owner.keys.admin.length / 2);
  });

  test('the stored hash itself is not a usable key', async () => {
    const row = await app.em().findOneOrFail(ApiKey, { orgId: owner.org.id, role: 'admin' });
    expectUnauthenticated(await app.gql(VIEWER, { key: row.secretHash }));
  });
});

describe('correlation ids', () => {
  test('every response carries one, fresh per request', async () => {
    const a = await app.gql(VIEWER, { key: owner.keys.admin });
    const b = await app.gql(VIEWER, { key: owner.keys.admin });
    const idA = a.headers.get('x-correlation-id');
    const idB = b.headers.get('x-correlation-id');
    expect(idA).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(idB).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(idA).not.toBe(idB);
  });

  test('unauthenticated responses carry one too', async () => {
    const res = await app.gql(VIEWER);
    expect(res.status).toBe(401);
    expect(res.headers.get('x-correlation-id')).toBeTruthy();
  });

  test('a valid sent id is echoed back', async () => {
    const sent = `req-${randomUUID()}`;
    const res = await app.gql(VIEWER, { key: owner.keys.admin, headers: { 'x-correlation-id': sent } });
    expect(res.headers.get('x-correlation-id')).toBe(sent);
  });

  test.each([
    ['spaces', 'not valid id'],
    ['too long', 'a'.repeat(129)],
    ['markup', '<script>'],
  ])('an invalid sent id (%s) is replaced', async (_label, sent) => {
    const res = await app.gql(VIEWER, { key: owner.keys.admin, headers: { 'x-correlation-id': sent } });
    const returned = res.headers.get('x-correlation-id');
    expect(returned).toBeTruthy();
    expect(returned).not.toBe(sent);
    expect(returned).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });
});

describe('error masking (NODE_ENV=test)', () => {
  const noStack = (res: GraphQLResponse) => {
    for (const error of res.body.errors ?? []) expect(error.extensions ?? {}).not.toHaveProperty('stacktrace');
    expect(JSON.stringify(res.body)).not.toMatch(/\bat .+\.(ts|js):\d+/);
  };

  test('a validation error keeps its code and has no stack trace', async () => {
    const res = await app.gql('{ viewer { nope } }', { key: owner.keys.admin });
    expect(errorCode(res)).toBe('GRAPHQL_VALIDATION_FAILED');
    noStack(res);
  });

  test('a parse error keeps its code and has no stack trace', async () => {
    const res = await app.gql('{ viewer { ', { key: owner.keys.admin });
    expect(errorCode(res)).toBe('GRAPHQL_PARSE_FAILED');
    noStack(res);
  });

  test('domain errors keep their code and have no stack trace', async () => {
    const res = await app.gql('mutation { setFeatureFlag(key: "Bad Key!", enabled: true) { key } }', {
      key: owner.keys.admin,
    });
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
    noStack(res);
    const forbidden = await app.gql('mutation { setFeatureFlag(key: "x", enabled: true) { key } }', {
      key: owner.keys.agent,
    });
    expect(errorCode(forbidden)).toBe('FORBIDDEN');
    noStack(forbidden);
  });

  test('an unexpected internal error is masked', async () => {
    // Simulate a database fault: the table a field reads from is briefly missing.
    const em = app.em();
    await em.execute('alter table specialists rename to specialists_moved_away');
    let res: GraphQLResponse;
    try {
      res = await app.gql('{ viewer { org { id specialists { id } } } }', { key: owner.keys.admin });
    } finally {
      await em.execute('alter table specialists_moved_away rename to specialists');
    }
    expect(res.status).toBe(200);
    expect(res.body.errors).toHaveLength(1);
    const [error] = res.body.errors!;
    expect(error.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(error.message).toBe('Internal server error');
    expect(Object.keys(error.extensions ?? {})).toEqual(['code']);
    expect(JSON.stringify(res.body)).not.toMatch(/specialists_|relation|select|does not exist/i);
    noStack(res);
    // The server is fine afterwards.
    const after = await app.gql('{ viewer { org { specialists { id } } } }', { key: owner.keys.admin });
    expect(after.body.errors).toBeUndefined();
  });
});
