import { startTestApp, type TestApp } from '../support/app';
import { dataOf, sql, type Tenant } from '../executor/executor-helpers';
import {
  CATALOG,
  IMPORT_MCP_TOOLS,
  MCP_SERVERS,
  REGISTER_MCP_SERVER,
  RUN_MANIFEST,
  callUpstream,
  enableTool,
  importTools,
  inspectUpstreamCall,
  mcpSandbox,
  registerServer,
  splitKey,
  startExternalRun,
  upstreamTenant,
} from './upstream-helpers';
import { SET_TOOL_PERMISSION } from '../support/documents';
import { MCP_SANDBOX_TOOLS } from '../../src/upstream/mcp.sandbox';

/**
 * Registering an upstream MCP server and importing its tools (admin GraphQL, the SDK client
 * against the sandbox's MCP server over real HTTP, a real PostgreSQL): the catalog rows,
 * the diff of a re-import, frozen manifests, refused input and other orgs.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({}, { sandboxes: true });
});

afterAll(async () => app?.close());

const WEATHER = 'mcp.sbx.weather_lookup';
const NOTIFY = 'mcp.sbx.contact_notify';

const countRows = async (table: string, orgId: string) =>
  Number((await sql<{ n: string }>(app, `select count(*)::text as n from ${table} where org_id = ?`, [orgId]))[0].n);

describe('register and import', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    mcpSandbox(app);
    tenant = await upstreamTenant(app);
  });

  test("an admin registers a server and imports its tools as mcp.<server>.<tool>, disabled, with the server's defaults", async () => {
    const server = await registerServer(app, tenant, { name: 'sbx', defaultRisk: 'medium', defaultIdempotent: true, defaultCostCents: 7 });
    expect(server).toMatchObject({
      name: 'sbx',
      transport: 'streamable_http',
      defaultRisk: 'medium',
      defaultCostCents: 7,
      hasCredential: false,
      tools: [],
    });
    expect(server.lastImportedAt).toBeNull();

    const imported = await importTools(app, tenant, server.id);
    expect(imported).toMatchObject({ added: [NOTIFY, WEATHER], removed: [], schemaChanged: [], unchanged: [], skipped: [] });
    expect(imported.server.tools).toEqual([NOTIFY, WEATHER]);
    expect(imported.server.lastImportedAt).not.toBeNull();

    const catalog = dataOf(await app.gql(CATALOG, { key: tenant.keys.admin })).toolCatalog;
    const weather = catalog.find((t) => t.name === WEATHER)!;
    expect(weather).toMatchObject({
      toolName: 'mcp.sbx',
      action: 'weather_lookup',
      vendor: 'mcp.sbx',
      defaultRisk: 'medium',
      idempotent: true,
      costCents: 7,
      enabled: false,
    });
    expect(weather.inputSchema).toEqual(MCP_SANDBOX_TOOLS[0].inputSchema);

    const events = await sql<{ type: string; metadata: Record<string, unknown> }>(
      app,
      "select type, metadata from ledger_events where org_id = ? and type like 'mcp_server.%' order by sequence",
      [tenant.orgId],
    );
    expect(events.map((e) => e.type)).toEqual(['mcp_server.registered', 'mcp_server.imported']);
    expect(events[0].metadata).toEqual({
      name: 'sbx',
      origin: new URL(app.sandbox!.urlFor('mcp')).origin,
      transport: 'streamable_http',
      defaultRisk: 'medium',
      defaultIdempotent: true,
      defaultCostCents: 7,
      bearerToken: false,
    });
  });

  test('a re-import with nothing changed upstream changes nothing', async () => {
    const [server] = dataOf(await app.gql(MCP_SERVERS, { key: tenant.keys.admin })).mcpServers;
    const again = await importTools(app, tenant, server.id);
    expect(again).toMatchObject({ added: [], removed: [], schemaChanged: [], unchanged: [NOTIFY, WEATHER] });
    expect(await countRows('tool_definitions', tenant.orgId)).toBe(2);
  });

  test('a bearer token goes to the credential vault (sealed) and is sent upstream', async () => {
    const sandbox = mcpSandbox(app);
    sandbox.bearerToken = 'upstream-secret-token-123';
    try {
      const secured = await registerServer(app, tenant, { name: 'secured', bearerToken: 'upstream-secret-token-123' });
      expect(secured.hasCredential).toBe(true);
      expect((await importTools(app, tenant, secured.id)).added).toHaveLength(2);
      expect(app.sandbox!.requests.every((r) => r.headers.authorization === 'Bearer upstream-secret-token-123')).toBe(true);
      const stored = await sql<{ row: string }>(app, 'select row_to_json(c)::text as row from integration_credentials c where org_id = ?', [
        tenant.orgId,
      ]);
      expect(stored).toHaveLength(1);
      expect(stored[0].row).toContain('mcp_secured');
      expect(stored[0].row).not.toContain('upstream-secret-token-123');

      // Without the token the upstream refuses: a clear code, and nothing is imported.
      const open = await registerServer(app, tenant, { name: 'unauthorized' });
      const refused = await app.gql(IMPORT_MCP_TOOLS, { key: tenant.keys.admin, variables: { id: open.id } });
      expect(refused.body.errors?.[0].extensions).toMatchObject({
        code: 'MCP_SERVER_UNREACHABLE',
        reason: 'vendor_auth_failed',
        vendorStatusCode: 401,
      });
      const listed = dataOf(await app.gql(MCP_SERVERS, { key: tenant.keys.admin })).mcpServers;
      expect(listed.find((s) => s.name === 'unauthorized')).toMatchObject({ tools: [], lastImportedAt: null });
    } finally {
      sandbox.bearerToken = null;
    }
  });
});

describe('bad input is refused with a stable code and changes nothing', () => {
  let tenant: Tenant;
  let before: { servers: number; tools: number; events: number };
  let goneId: string;

  beforeAll(async () => {
    mcpSandbox(app);
    tenant = await upstreamTenant(app);
    await registerServer(app, tenant, { name: 'taken' });
    goneId = (await registerServer(app, tenant, { name: 'gone', url: 'http://127.0.0.1:1/mcp' })).id;
    before = {
      servers: await countRows('upstream_mcp_servers', tenant.orgId),
      tools: await countRows('tool_definitions', tenant.orgId),
      events: await countRows('ledger_events', tenant.orgId),
    };
  });

  afterAll(async () => {
    expect({
      servers: await countRows('upstream_mcp_servers', tenant.orgId),
      tools: await countRows('tool_definitions', tenant.orgId),
      events: await countRows('ledger_events', tenant.orgId),
    }).toEqual(before);
  });

  const register = (input: Record<string, unknown>) =>
    app.gql(REGISTER_MCP_SERVER, {
      key: tenant.keys.admin,
      variables: { input: { name: 'fresh', url: app.sandbox!.urlFor('mcp'), defaultRisk: 'low', defaultIdempotent: true, ...input } as never },
    });

  test.each([
    ['a non-http(s) URL', { url: 'ftp://example.com/mcp' }, 'BAD_USER_INPUT', 'url'],
    ['a relative URL', { url: '/mcp' }, 'BAD_USER_INPUT', 'url'],
    ['a URL carrying credentials', { url: 'http://user:pw@127.0.0.1/mcp' }, 'BAD_USER_INPUT', 'url'],
    ['a name with capitals', { name: 'Weather' }, 'BAD_USER_INPUT', 'name'],
    ['a name with a dot', { name: 'a.b' }, 'BAD_USER_INPUT', 'name'],
    ['a name with a double underscore', { name: 'a__b' }, 'BAD_USER_INPUT', 'name'],
    ['a blank bearer token', { bearerToken: '  ' }, 'BAD_USER_INPUT', 'bearerToken'],
    ['a negative cost', { defaultCostCents: -1 }, 'BAD_USER_INPUT', 'defaultCostCents'],
    ['a cost over the limit', { defaultCostCents: 100_001 }, 'BAD_USER_INPUT', 'defaultCostCents'],
    ['a name the org already uses', { name: 'taken' }, 'MCP_SERVER_NAME_TAKEN', 'name'],
  ])('%s', async (_what, input, code, field) => {
    const response = await register(input);
    expect(response.body.errors?.[0].extensions).toMatchObject({ code, field });
  });

  test('an unknown transport is refused by the schema', async () => {
    const response = await register({ transport: 'stdio' });
    expect(response.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });

  test('an unreachable server: MCP_SERVER_UNREACHABLE on import', async () => {
    const response = await app.gql(IMPORT_MCP_TOOLS, { key: tenant.keys.admin, variables: { id: goneId } });
    expect(response.body.errors?.[0].extensions).toMatchObject({ code: 'MCP_SERVER_UNREACHABLE', reason: 'connection_failed' });
  });

  test('an upstream answering 503: MCP_SERVER_UNREACHABLE with the status, nothing imported', async () => {
    const [taken] = dataOf(await app.gql(MCP_SERVERS, { key: tenant.keys.admin })).mcpServers.filter((s) => s.name === 'taken');
    app.sandbox!.injectFault('mcp', { kind: 'status', status: 503 });
    const response = await app.gql(IMPORT_MCP_TOOLS, { key: tenant.keys.admin, variables: { id: taken.id } });
    expect(response.body.errors?.[0].extensions).toMatchObject({ code: 'MCP_SERVER_UNREACHABLE', vendorStatusCode: 503 });
    expect(JSON.stringify(response.body)).not.toContain('vendor-internal-trace-xyz');
  });

  test('a server id that is not one: NOT_FOUND', async () => {
    const response = await app.gql(IMPORT_MCP_TOOLS, { key: tenant.keys.admin, variables: { id: 'nope' } });
    expect(response.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  test('only admins: an expert key is FORBIDDEN', async () => {
    const response = await app.gql(REGISTER_MCP_SERVER, {
      key: tenant.keys.expert,
      variables: { input: { name: 'fresh', url: 'http://127.0.0.1/mcp', defaultRisk: 'low', defaultIdempotent: true } },
    });
    expect(response.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect((await app.gql(MCP_SERVERS, { key: tenant.keys.expert })).body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});

describe('re-import: the diff, and frozen manifests never widen', () => {
  let tenant: Tenant;
  let serverId: string;

  beforeAll(async () => {
    mcpSandbox(app);
    tenant = await upstreamTenant(app);
    serverId = (await registerServer(app, tenant, { name: 'sbx' })).id;
    await importTools(app, tenant, serverId);
    await enableTool(app, tenant, WEATHER);
    await enableTool(app, tenant, NOTIFY);
  });

  test('removed, schema changed and added upstream: a running run keeps its manifest, and gains nothing', async () => {
    const run = await startExternalRun(app, tenant);
    expect(run.allowedTools).toEqual([NOTIFY, WEATHER]);
    const notified = await callUpstream(app, tenant, run.id, NOTIFY, { email: 'ana@example.com', message: 'Hello' });
    expect(notified.answer.status).toBe('succeeded');

    const sandbox = mcpSandbox(app);
    const weather = sandbox.tools.find((t) => t.name === 'weather.lookup')!;
    (weather.inputSchema.properties as Record<string, unknown>).units = { type: 'string', enum: ['metric', 'imperial'] };
    sandbox.tools = [weather, { name: 'news.headlines', description: 'Headlines', inputSchema: { type: 'object', properties: {} } }];

    const diff = await importTools(app, tenant, serverId);
    expect(diff).toMatchObject({ added: ['mcp.sbx.news_headlines'], removed: [NOTIFY], schemaChanged: [WEATHER], unchanged: [] });
    expect(diff.server.tools).toEqual(['mcp.sbx.news_headlines', WEATHER]);
    const imported = (
      await sql<{ metadata: Record<string, unknown> }>(
        app,
        "select metadata from ledger_events where org_id = ? and type = 'mcp_server.imported' order by sequence desc limit 1",
        [tenant.orgId],
      )
    )[0];
    expect(imported.metadata.disabled).toEqual([NOTIFY, WEATHER]);

    // The frozen manifest is the same list; what changed or went is refused in it until an admin decides.
    const frozen = dataOf(await app.gql(RUN_MANIFEST, { key: tenant.keys.admin, variables: { id: run.id } })).run;
    expect(frozen.allowedTools).toEqual([NOTIFY, WEATHER]);
    const gone = await callUpstream(app, tenant, run.id, NOTIFY, { email: 'ana@example.com', message: 'Again' });
    expect(gone.answer).toMatchObject({ status: 'blocked', error: { code: 'NOT_IN_MANIFEST' } });
    const changed = await callUpstream(app, tenant, run.id, WEATHER, { city: 'Berlin', units: 'metric' });
    expect(changed.answer).toMatchObject({ status: 'blocked', error: { code: 'NOT_IN_MANIFEST' } });
    const added = await callUpstream(app, tenant, run.id, 'mcp.sbx.news_headlines', {});
    expect(added.answer).toMatchObject({ status: 'blocked', error: { code: 'NOT_IN_MANIFEST' } });
    expect(sandbox.notifications).toHaveLength(0);

    // The removed tool stays a row: its earlier call and ledger events read as before.
    const earlier = await inspectUpstreamCall(app, tenant, notified.answer.toolCallId);
    expect(earlier).toMatchObject({ toolName: 'mcp.sbx', action: 'contact_notify', status: 'succeeded' });
    const removedRow = await sql<{ removed_at: Date | null }>(app, 'select removed_at from tool_definitions where org_id = ? and action = ?', [
      tenant.orgId,
      'contact_notify',
    ]);
    expect(removedRow[0].removed_at).not.toBeNull();
    const { toolName, action } = splitKey(NOTIFY);
    const reEnable = await app.gql(SET_TOOL_PERMISSION, { key: tenant.keys.admin, variables: { tool: toolName, action, enabled: true } });
    expect(reEnable.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');

    // An admin enables the changed tool again: the running run may call it, with the new schema.
    await enableTool(app, tenant, WEATHER);
    const now = await callUpstream(app, tenant, run.id, WEATHER, { city: 'Berlin', units: 'metric' });
    expect(now.answer.status).toBe('succeeded');
    // A new run: neither the removed tool nor the added one (not enabled) is in its manifest.
    expect((await startExternalRun(app, tenant)).allowedTools).toEqual([WEATHER]);
  });
});

describe('other orgs', () => {
  let owner: Tenant;
  let other: Tenant;
  let serverId: string;

  beforeAll(async () => {
    mcpSandbox(app);
    owner = await upstreamTenant(app);
    other = await upstreamTenant(app);
    serverId = (await registerServer(app, owner, { name: 'sbx' })).id;
    await importTools(app, owner, serverId);
    await enableTool(app, owner, WEATHER);
  });

  test('cannot see, import, enable or call the server and its tools', async () => {
    expect(dataOf(await app.gql(MCP_SERVERS, { key: other.keys.admin })).mcpServers).toEqual([]);
    const catalog = dataOf(await app.gql(CATALOG, { key: other.keys.admin })).toolCatalog;
    expect(catalog.some((t) => t.toolName.startsWith('mcp.'))).toBe(false);
    const imported = await app.gql(IMPORT_MCP_TOOLS, { key: other.keys.admin, variables: { id: serverId } });
    expect(imported.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const enable = await app.gql(SET_TOOL_PERMISSION, {
      key: other.keys.admin,
      variables: { tool: 'mcp.sbx', action: 'weather_lookup', enabled: true },
    });
    expect(enable.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');

    const run = await startExternalRun(app, other);
    const call = await callUpstream(app, other, run.id, WEATHER, { city: 'Berlin' });
    expect(call.answer).toMatchObject({ status: 'blocked', error: { code: 'NOT_IN_MANIFEST' } });
    expect(await countRows('tool_permissions', other.orgId)).toBe(0);
  });

  test('may use the same server name: its own rows, no hint of the first', async () => {
    const mine = await registerServer(app, other, { name: 'sbx' });
    expect((await importTools(app, other, mine.id)).added).toEqual([NOTIFY, WEATHER]);
    const rows = await sql<{ id: string; org_id: string }>(
      app,
      "select id, org_id from tool_definitions where tool_name = 'mcp.sbx' and action = 'weather_lookup' and org_id in (?, ?)",
      [owner.orgId, other.orgId],
    );
    expect(rows.map((r) => r.org_id).sort()).toEqual([owner.orgId, other.orgId].sort());
    expect(new Set(rows.map((r) => r.id)).size).toBe(2);
    // The owner's enabled tool is still the owner's alone.
    const otherCatalog = dataOf(await app.gql(CATALOG, { key: other.keys.admin })).toolCatalog;
    expect(otherCatalog.find((t) => t.name === WEATHER)?.enabled).toBe(false);
  });
});
