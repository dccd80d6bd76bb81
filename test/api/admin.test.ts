import { randomUUID } from 'node:crypto';
import { errorCode, startTestApp, type GraphQLResponse, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { readCredential } from '../../src/credentials/credential.service';
import { AppError } from '../../src/errors/app-error';
import { LEDGER_RECORD_SELECT, ledgerHash, type LedgerRecord } from '../../src/ledger/ledger-hash';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { graphql } from '../gql';
import type { AdminLedgerQuery } from '../gql/graphql';
import { SetFeatureFlagDocument, ToolCatalogDocument } from '../../gql/graphql';
import { textOf } from '../support/graphql-http';
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
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

const LEDGER = graphql(`
  query AdminLedger($after: String, $type: String) {
    ledgerEvents(first: 100, after: $after, filter: {type: $type}) {
      edges { node { id sequence type resourceId actorRole metadata prevHash hash createdAt } }
      pageInfo { hasNextPage endCursor }
    }
  }
`);
type LedgerNode = AdminLedgerQuery['ledgerEvents']['edges'][number]['node'];

/** The org's whole ledger (or one type of event) through the API, in order. */
async function ledger(owner: TestOrg, type?: string): Promise<{ nodes: LedgerNode[]; responses: GraphQLResponse<unknown>[] }> {
  const nodes: LedgerNode[] = [];
  const responses: GraphQLResponse<unknown>[] = [];
  let after: string | null = null;
  do {
    const res: GraphQLResponse<AdminLedgerQuery> = await app.gql(LEDGER, { key: owner.keys.admin, variables: { after, type } });
    expect(res.body.errors).toBeUndefined();
    responses.push(res);
    const page = res.body.data!.ledgerEvents;
    nodes.push(...page.edges.map((e) => e.node));
    after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
  } while (after);
  return { nodes, responses };
}

async function lastEvent(owner: TestOrg): Promise<LedgerNode> {
  const { nodes } = await ledger(owner);
  return nodes[nodes.length - 1];
}

async function count(table: string, orgId: string): Promise<number> {
  const [row] = await app.em().execute<{ n: string }[]>(`select count(*) as n from ${table} where org_id = ?`, [orgId]);
  return Number(row.n);
}

const WRITTEN_TABLES = ['ledger_events', 'specialists', 'feature_flags', 'tool_permissions', 'tool_specialist_bindings', 'integration_credentials'];

/** Row counts of everything an admin mutation writes. */
async function snapshot(owner: TestOrg): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of WRITTEN_TABLES) counts[table] = await count(table, owner.org.id);
  return counts;
}

async function expectRejected<R, V>(owner: TestOrg, code: string, document: TypedDocumentNode<R, V>, variables: V) {
  const before = await snapshot(owner);
  const res = await app.gql(document, { key: owner.keys.admin, variables });
  expect(errorCode(res)).toBe(code);
  expect(res.body.data ?? null).toBeNull();
  expect(await snapshot(owner)).toEqual(before);
}

async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return error instanceof AppError ? error.code : `not an AppError: ${String(error)}`;
  }
  return 'resolved';
}

const CREDENTIAL_TYPE = graphql(`
  query CredentialType {
    __type(name: "IntegrationCredential") { fields { name } }
  }
`);
const SCHEMA_FIELDS = graphql(`
  query SchemaFields {
    __schema { types { name fields { name } } }
  }
`);

async function admin<R, V>(owner: TestOrg, document: TypedDocumentNode<R, V>, variables: V) {
  const res = await app.gql(document, { key: owner.keys.admin, variables });
  expect(res.body.errors).toBeUndefined();
  return res;
}

describe('createSpecialist', () => {
  test('creates a specialist (name trimmed) and records specialist.created', async () => {
    const owner = await newOrg(app.em());
    const input = { name: '  Billing  ', description: 'Invoices', systemPrompt: 'Be brief.' };
    const res = await admin(owner, CREATE_SPECIALIST, { input });
    const created = res.body.data!.createSpecialist;
    expect(created).toMatchObject({ name: 'Billing', description: 'Invoices', systemPrompt: 'Be brief.' });
    const list = await app.gql(ORG_SPECIALISTS, { key: owner.keys.client });
    expect(list.body.data!.viewer.org.specialists).toContainEqual({ id: created.id, name: 'Billing' });
    expect(await lastEvent(owner)).toMatchObject({
      type: 'specialist.created',
      resourceId: created.id,
      actorRole: 'admin',
      metadata: { name: 'Billing' },
    });
  });

  test.each([
    ['an empty name', { name: '' }],
    ['a blank name', { name: '   ' }],
    ['a name over 200 characters', { name: 'x'.repeat(201) }],
    ['a system prompt over 20000 characters', { name: 'Ok', systemPrompt: 'p'.repeat(20_001) }],
  ])('%s is BAD_USER_INPUT and writes nothing', async (_label, input) => {
    const owner = await newOrg(app.em());
    await expectRejected(owner, 'BAD_USER_INPUT', CREATE_SPECIALIST, { input });
  });
});

describe('setFeatureFlag', () => {
  test('turns tool_calling_enabled on and off, recording each change', async () => {
    const owner = await newOrg(app.em());
    const on = await admin(owner, SetFeatureFlagDocument, { key: 'tool_calling_enabled', enabled: true });
    expect(on.body.data!.setFeatureFlag).toEqual({ key: 'tool_calling_enabled', enabled: true, updatedAt: expect.any(String) });
    const flags = async () => (await app.gql(ORG_FEATURE_FLAGS, { key: owner.keys.admin })).body.data!.viewer.org.featureFlags;
    expect(await flags()).toEqual([{ key: 'tool_calling_enabled', enabled: true }]);
    expect(await lastEvent(owner)).toMatchObject({
      type: 'feature_flag.changed',
      actorRole: 'admin',
      metadata: { key: 'tool_calling_enabled', enabled: true, previous: false },
    });

    const off = await admin(owner, SetFeatureFlagDocument, { key: 'tool_calling_enabled', enabled: false });
    expect(off.body.data!.setFeatureFlag.enabled).toBe(false);
    expect(await flags()).toEqual([{ key: 'tool_calling_enabled', enabled: false }]);
    expect(await lastEvent(owner)).toMatchObject({
      type: 'feature_flag.changed',
      metadata: { key: 'tool_calling_enabled', enabled: false, previous: true },
    });
    expect(await count('feature_flags', owner.org.id)).toBe(1);
  });

  test.each(['Bad Key!', '', 'Tool_Calling', '1flag', 'a'.repeat(65)])('key %p is BAD_USER_INPUT', async (key) => {
    const owner = await newOrg(app.em());
    await expectRejected(owner, 'BAD_USER_INPUT', SetFeatureFlagDocument, { key, enabled: true });
  });
});

describe('setToolPermission', () => {
  test('enables and disables a catalog tool for the org only', async () => {
    const owner = await newOrg(app.em());
    const other = await newOrg(app.em());
    const enabledIn = async (o: TestOrg) =>
      (await app.gql(ToolCatalogDocument, { key: o.keys.agent })).body.data!.toolCatalog.find((t) => t.name === 'order_lookup.lookup')?.enabled;
    expect(await enabledIn(owner)).toBe(false);

    const res = await admin(owner, SET_TOOL_PERMISSION, { tool: 'order_lookup', action: 'lookup', enabled: true });
    expect(res.body.data!.setToolPermission).toEqual({ toolName: 'order_lookup', action: 'lookup', enabled: true });
    expect(await enabledIn(owner)).toBe(true);
    expect(await enabledIn(other)).toBe(false);
    const first = await lastEvent(owner);
    expect(first).toMatchObject({
      type: 'permission.changed',
      actorRole: 'admin',
      metadata: { scope: 'org', tool: 'order_lookup.lookup', enabled: true },
    });
    // Every tool starts disabled, so the first change is from false.
    expect(first.metadata.previous).toBe(false);

    await admin(owner, SET_TOOL_PERMISSION, { tool: 'order_lookup', action: 'lookup', enabled: false });
    expect(await enabledIn(owner)).toBe(false);
    expect(await lastEvent(owner)).toMatchObject({
      type: 'permission.changed',
      metadata: { scope: 'org', tool: 'order_lookup.lookup', enabled: false, previous: true },
    });
    expect(await count('tool_permissions', owner.org.id)).toBe(1);
  });

  test.each([
    ['an unknown tool', 'no_such_tool', 'lookup'],
    ['an unknown action of a known tool', 'order_lookup', 'delete'],
  ])('%s is NOT_FOUND and writes nothing', async (_label, tool, action) => {
    const owner = await newOrg(app.em());
    await expectRejected(owner, 'NOT_FOUND', SET_TOOL_PERMISSION, { tool, action, enabled: true });
  });
});

describe('bindToolToSpecialist', () => {
  test('binds and unbinds, recording only actual changes', async () => {
    const owner = await newOrg(app.em());
    const input = { specialistId: owner.specialist.id, toolName: 'order_lookup', action: 'lookup' };
    const bound = await admin(owner, BIND_TOOL, { input }); // bound defaults to true
    expect(bound.body.data!.bindToolToSpecialist).toEqual({ ...input, bound: true });
    expect(await count('tool_specialist_bindings', owner.org.id)).toBe(1);
    const event = await lastEvent(owner);
    expect(event).toMatchObject({
      type: 'permission.changed',
      resourceId: owner.specialist.id,
      actorRole: 'admin',
      metadata: { scope: 'specialist', specialistId: owner.specialist.id, tool: 'order_lookup.lookup', bound: true },
    });

    const events = await count('ledger_events', owner.org.id);
    await admin(owner, BIND_TOOL, { input: { ...input, bound: true } });
    expect(await count('ledger_events', owner.org.id)).toBe(events);
    expect(await count('tool_specialist_bindings', owner.org.id)).toBe(1);

    const unbound = await admin(owner, BIND_TOOL, { input: { ...input, bound: false } });
    expect(unbound.body.data!.bindToolToSpecialist.bound).toBe(false);
    expect(await count('tool_specialist_bindings', owner.org.id)).toBe(0);
    expect(await lastEvent(owner)).toMatchObject({ type: 'permission.changed', metadata: { bound: false } });
    await admin(owner, BIND_TOOL, { input: { ...input, bound: false } });
    expect(await count('ledger_events', owner.org.id)).toBe(events + 1);
  });

  test("unknown specialists (including another org's) and unknown tools are NOT_FOUND", async () => {
    const owner = await newOrg(app.em());
    const other = await newOrg(app.em());
    const base = { toolName: 'order_lookup', action: 'lookup', bound: true };
    for (const specialistId of [randomUUID(), 'not-a-uuid', other.specialist.id]) {
      await expectRejected(owner, 'NOT_FOUND', BIND_TOOL, { input: { ...base, specialistId } });
    }
    await expectRejected(owner, 'NOT_FOUND', BIND_TOOL, {
      input: { ...base, specialistId: owner.specialist.id, toolName: 'no_such_tool' },
    });
    expect(await count('tool_specialist_bindings', other.org.id)).toBe(0);
  });
});

describe('the admin ledger', () => {
  test('every admin change appends an event with the actor role, on one consistent hash chain', async () => {
    const owner = await newOrg(app.em());
    const before = (await ledger(owner)).nodes.length;
    const spec = await admin(owner, CREATE_SPECIALIST, { input: { name: 'Chain' } });
    await admin(owner, SetFeatureFlagDocument, { key: 'tool_calling_enabled', enabled: true });
    await admin(owner, SET_TOOL_PERMISSION, { tool: 'invoice', action: 'send', enabled: true });
    const specialistId = spec.body.data!.createSpecialist.id;
    await admin(owner, BIND_TOOL, { input: { specialistId, toolName: 'invoice', action: 'send', bound: true } });
    const put = await admin(owner, PUT_CREDENTIAL, { type: 'nango', config: { secretKey: 'one' } });
    const replaced = await admin(owner, PUT_CREDENTIAL, { type: 'nango', config: { secretKey: 'two' } });
    const credential = put.body.data!.putIntegrationCredential;
    expect(replaced.body.data!.putIntegrationCredential.id).toBe(credential.id);
    expect(await count('integration_credentials', owner.org.id)).toBe(1);

    const { nodes } = await ledger(owner);
    const added = nodes.slice(before);
    expect(added.map((e) => e.type)).toEqual([
      'specialist.created',
      'feature_flag.changed',
      'permission.changed',
      'permission.changed',
      'credential.created',
      'credential.rotated',
    ]);
    expect(added.every((e) => e.actorRole === 'admin')).toBe(true);
    expect(added[4]).toMatchObject({
      resourceId: credential.id,
      metadata: { integrationType: 'nango', keyVersion: 1, replaced: false },
    });
    expect(added[5]).toMatchObject({ resourceId: credential.id, metadata: { replaced: true } });

    // The chain as the API shows it: 1, 2, 3, … each linked to its predecessor.
    nodes.forEach((event, i) => {
      expect(event.sequence).toBe(String(i + 1));
      expect(event.prevHash).toBe(i === 0 ? null : nodes[i - 1].hash);
      expect(event.hash).toMatch(/^[0-9a-f]{64}$/);
    });
    // And each hash recomputes from the stored row.
    const rows = await app
      .em()
      .execute<(LedgerRecord & { hash: string })[]>(`select ${LEDGER_RECORD_SELECT} from ledger_events e where e.org_id = ? order by e.sequence`, [
        owner.org.id,
      ]);
    expect(rows.map((r) => r.hash)).toEqual(nodes.map((n) => n.hash));
    for (const row of rows) expect(ledgerHash(row)).toBe(row.hash);
  });
});

describe('integration credentials are write-only', () => {
  const canary = `CANARY-${randomUUID()}`;
  const config = { shopDomain: 'canary.myshopify.com', accessToken: canary };
  let owner: TestOrg;
  const responses: GraphQLResponse<unknown>[] = [];

  beforeAll(async () => {
    owner = await newOrg(app.em(), 'Credential Org');
    responses.push(await admin(owner, PUT_CREDENTIAL, { type: 'shopify', config }));
  });

  test('no GraphQL response carries the config', async () => {
    const integrations = await app.gql(ORG_INTEGRATIONS, { key: owner.keys.admin });
    expect(integrations.body.data!.viewer.org.integrations).toEqual([expect.objectContaining({ integrationType: 'shopify', keyVersion: 1 })]);
    responses.push(integrations, ...(await ledger(owner)).responses);

    const type = await app.gql(CREDENTIAL_TYPE, { key: owner.keys.admin });
    const fields = type.body.data!.__type?.fields?.map((f) => f.name).sort();
    expect(fields).toEqual(['createdAt', 'id', 'integrationType', 'keyVersion', 'updatedAt']);
    const schema = await app.gql(SCHEMA_FIELDS, { key: owner.keys.admin });
    const allFields = schema.body.data!.__schema.types.flatMap((t) => (t.fields ?? []).map((f) => `${t.name}.${f.name}`));
    // The secrets the API returns are issued ones, once each: a new API key's (createApiKey) and a
    // new webhook endpoint's signing secret (createWebhookEndpoint).
    expect(allFields.filter((f) => /config|encrypt|cipher|secret/i.test(f))).toEqual(['CreatedApiKey.secret', 'CreatedWebhookEndpoint.secret']);
    responses.push(type, schema);

    for (const res of responses) expect(JSON.stringify(res.body)).not.toContain(canary);
  });

  test('the database holds only ciphertext', async () => {
    const [row] = await app
      .em()
      .execute<{ encrypted_config: string }[]>(
        "select encrypted_config::text as encrypted_config from integration_credentials where org_id = ? and integration_type = 'shopify'",
        [owner.org.id],
      );
    expect(row.encrypted_config).not.toContain(canary);
    expect(row.encrypted_config).not.toContain('canary.myshopify.com');
    const sealed = { iv: expect.any(String), tag: expect.any(String), ciphertext: expect.any(String) };
    expect(JSON.parse(row.encrypted_config)).toEqual({ format: 'envelope-v1', keyVersion: 1, wrappedKey: sealed, config: sealed });
    const ledgerRows = await app.em().execute('select * from ledger_events where org_id = ?', [owner.org.id]);
    expect(JSON.stringify(ledgerRows)).not.toContain(canary);
  });

  test('readCredential returns the config', async () => {
    expect(await readCredential(app.em(), app.masterKey, owner.org.id, 'shopify')).toEqual(config);
    expect(await rejectionCode(readCredential(app.em(), app.masterKey, owner.org.id, 'amazon'))).toBe('CREDENTIALS_NOT_FOUND');
  });

  test("a ciphertext copied into another org's row does not decrypt there", async () => {
    const other = await newOrg(app.em());
    await admin(other, PUT_CREDENTIAL, { type: 'shopify', config: { accessToken: 'other-org-token' } });
    expect(await readCredential(app.em(), app.masterKey, other.org.id, 'shopify')).toEqual({
      accessToken: 'other-org-token',
    });
    await app.em().execute(
      `update integration_credentials
          set encrypted_config = (select encrypted_config from integration_credentials where org_id = ? and integration_type = 'shopify')
        where org_id = ? and integration_type = 'shopify'`,
      [owner.org.id, other.org.id],
    );
    expect(await rejectionCode(readCredential(app.em(), app.masterKey, other.org.id, 'shopify'))).toBe('CREDENTIALS_UNREADABLE');
    // The original is untouched.
    expect(await readCredential(app.em(), app.masterKey, owner.org.id, 'shopify')).toEqual(config);
  });

  test('a ciphertext copied to another integration of the same org does not decrypt', async () => {
    await admin(owner, PUT_CREDENTIAL, { type: 'amazon', config: { refreshToken: 'amz' } });
    await app.em().execute(
      `update integration_credentials
          set encrypted_config = (select encrypted_config from integration_credentials where org_id = ? and integration_type = 'shopify')
        where org_id = ? and integration_type = 'amazon'`,
      [owner.org.id, owner.org.id],
    );
    expect(await rejectionCode(readCredential(app.em(), app.masterKey, owner.org.id, 'amazon'))).toBe('CREDENTIALS_UNREADABLE');
  });

  test('replacing a credential rotates it', async () => {
    const target = await newOrg(app.em());
    const first = (await admin(target, PUT_CREDENTIAL, { type: 'shopify', config: { accessToken: 'v1' } })).body.data!.putIntegrationCredential;
    const second = (await admin(target, PUT_CREDENTIAL, { type: 'shopify', config: { accessToken: 'v2' } })).body.data!.putIntegrationCredential;
    expect(second.id).toBe(first.id);
    expect(second.createdAt).toBe(first.createdAt);
    expect(Date.parse(second.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.updatedAt));
    expect(await readCredential(app.em(), app.masterKey, target.org.id, 'shopify')).toEqual({ accessToken: 'v2' });
    expect((await ledger(target, 'credential.rotated')).nodes).toHaveLength(1);
  });

  test.each([
    ['an empty config', 'shopify', {}],
    ['a bad integration type', 'Shop!fy', { accessToken: 'x' }],
    ['an upper-case integration type', 'Shopify', { accessToken: 'x' }],
    ['a one-letter integration type', 's', { accessToken: 'x' }],
    ['a config over 16 KiB', 'shopify', { accessToken: 'x'.repeat(17 * 1024) }],
  ])('%s is BAD_USER_INPUT and writes nothing', async (_label, type, cfg) => {
    const target = await newOrg(app.em());
    await expectRejected(target, 'BAD_USER_INPUT', PUT_CREDENTIAL, { type, config: cfg });
  });

  test('a config that is not a JSON object is refused', async () => {
    const target = await newOrg(app.em());
    for (const cfg of [['a'], 'token', 42]) {
      const before = await snapshot(target);
      // Sent as the document's text: the typed variables would not take a config that is not an object.
      const res = await app.gql(textOf(PUT_CREDENTIAL), { key: target.keys.admin, variables: { type: 'shopify', config: cfg } });
      expect(errorCode(res)).toBe('BAD_USER_INPUT');
      expect(await snapshot(target)).toEqual(before);
    }
  });
});
