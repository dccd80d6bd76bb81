import { randomBytes, randomUUID } from 'node:crypto';
import { errorCode, startTestApp, type GraphQLResponse, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { ApiKey } from '../../src/auth/api-key.entity';
import { hashSecret } from '../../src/auth/api-key.service';
import { ROLES, type Role } from '../../src/auth/roles';
import { createKey } from '../../src/orgs/org.service';
import { graphql } from '../gql';
import { LedgerEventsDocument, SetFeatureFlagDocument, ToolCatalogDocument, ViewerDocument } from '../../gql/graphql';
import {
  BIND_TOOL,
  CREATE_SPECIALIST,
  ORG_FEATURE_FLAGS,
  ORG_INTEGRATIONS,
  ORG_SPECIALISTS,
  PUT_CREDENTIAL,
  SET_TOOL_PERMISSION,
} from '../support/documents';

let app: TestApp;
let owner: TestOrg;

beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em(), 'Auth Org');
});
afterAll(async () => app?.close());

const VIEWER = ViewerDocument;
const SCHEMA_ROOT = graphql(`
  query SchemaRoot {
    __schema { queryType { name } }
  }
`);

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
    expectUnauthenticated(await app.gql(SCHEMA_ROOT));
    expectUnauthenticated(await app.gql(ToolCatalogDocument));
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

  test('the key is accepted with a case-insensitive Bearer scheme', async () => {
    for (const authorization of [`bearer ${owner.keys.admin}`, `Bearer   ${owner.keys.admin}  `]) {
      const res = await app.gql(VIEWER, { headers: { authorization } });
      expect(res.status).toBe(200);
      expect(res.body.data?.viewer.org.id).toBe(owner.org.id);
    }
  });

  test('a bare key, without the Bearer scheme, is refused UNAUTHENTICATED, the message naming the form', async () => {
    const res = await app.gql(VIEWER, { headers: { authorization: owner.keys.admin } });
    expectUnauthenticated(res);
    expect(res.body.errors?.[0].message).toContain('Authorization: Bearer <key>');
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
  /** Each admin mutation, sent for an org with a key. */
  const mutations: Record<string, (o: TestOrg, key: string) => Promise<GraphQLResponse<Record<string, unknown>>>> = {
    createSpecialist: (_o, key) => app.gql(CREATE_SPECIALIST, { key, variables: { input: { name: 'Intruder' } } }),
    setFeatureFlag: (_o, key) => app.gql(SetFeatureFlagDocument, { key, variables: { key: 'tool_calling_enabled', enabled: true } }),
    setToolPermission: (_o, key) => app.gql(SET_TOOL_PERMISSION, { key, variables: { tool: 'order_lookup', action: 'lookup', enabled: true } }),
    bindToolToSpecialist: (o, key) =>
      app.gql(BIND_TOOL, { key, variables: { input: { specialistId: o.specialist.id, toolName: 'order_lookup', action: 'lookup' } } }),
    putIntegrationCredential: (_o, key) =>
      app.gql(PUT_CREDENTIAL, { key, variables: { type: 'shopify', config: { accessToken: 'shpat_intruder' } } }),
  };
  const cases = Object.keys(mutations).flatMap((name) => NON_ADMIN.map((role) => [name, role] as const));

  test.each(cases)('%s as %s is FORBIDDEN and writes nothing', async (name, role) => {
    const target = await newOrg(app.em());
    const before = await orgWrites(target.org.id);
    const res = await mutations[name](target, target.keys[role]);
    expect(res.status).toBe(200);
    expect(errorCode(res)).toBe('FORBIDDEN');
    expect(res.body.data ?? null).toBeNull();
    expect(await orgWrites(target.org.id)).toEqual(before);
  });

  test.each(Object.keys(mutations))('%s works for the admin role', async (name) => {
    const target = await newOrg(app.em());
    const res = await mutations[name](target, target.keys.admin);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.[name]).toBeTruthy();
  });

  test.each(NON_ADMIN)('org.integrations and org.featureFlags are FORBIDDEN for %s', async (role) => {
    for (const res of [await app.gql(ORG_INTEGRATIONS, { key: owner.keys[role] }), await app.gql(ORG_FEATURE_FLAGS, { key: owner.keys[role] })]) {
      expect(errorCode(res)).toBe('FORBIDDEN');
    }
  });

  test.each(['client', 'partner', 'agent'] as Role[])('the ledger is FORBIDDEN for %s', async (role) => {
    const res = await app.gql(LedgerEventsDocument, { key: owner.keys[role] });
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
  const noStack = (res: GraphQLResponse<unknown>) => {
    for (const error of res.body.errors ?? []) expect(error.extensions ?? {}).not.toHaveProperty('stacktrace');
    expect(JSON.stringify(res.body)).not.toMatch(/\bat .+\.(ts|js):\d+/);
  };

  // Malformed documents are sent as text: that is what these tests are about.
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
    const res = await app.gql(SetFeatureFlagDocument, { key: owner.keys.admin, variables: { key: 'Bad Key!', enabled: true } });
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
    noStack(res);
    const forbidden = await app.gql(SetFeatureFlagDocument, { key: owner.keys.agent, variables: { key: 'x', enabled: true } });
    expect(errorCode(forbidden)).toBe('FORBIDDEN');
    noStack(forbidden);
  });

  test('an unexpected internal error is masked', async () => {
    // Simulate a database fault: the table a field reads from is briefly missing.
    const em = app.em();
    await em.execute('alter table specialists rename to specialists_moved_away');
    let res: GraphQLResponse<unknown>;
    try {
      res = await app.gql(ORG_SPECIALISTS, { key: owner.keys.admin });
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
    const after = await app.gql(ORG_SPECIALISTS, { key: owner.keys.admin });
    expect(after.body.errors).toBeUndefined();
  });
});
