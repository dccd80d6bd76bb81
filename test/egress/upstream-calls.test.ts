import { startTestApp, type TestApp } from '../support/app';
import type { Tenant } from '../executor/executor-helpers';
import {
  callUpstream,
  enableTool,
  importTools,
  inspectUpstreamCall,
  mcpSandbox,
  registerServer,
  startExternalRun,
  toolCallsSeen,
  upstreamTenant,
} from '../upstream/upstream-helpers';
import { UpstreamMcpServer } from '../../src/upstream/upstream-server.entity';
import type { EgressResolver } from '../../src/egress/egress';

/**
 * The executor's calls of imported MCP tools go through the egress policy too: each new
 * connection resolves the server's host and checks every address. The sandbox's MCP server
 * listens on 127.0.0.1 (opened for the test servers); the server is registered by the name
 * `localhost`, which the test's resolver answers with 127.0.0.1 and, at times, 10.0.0.1 as
 * well — then the call is refused although the sandbox is right there.
 */
const WEATHER = 'mcp.sbx.weather_lookup';
let localhostDns: string[] = [];
const resolver: EgressResolver = async (hostname) => (hostname === 'localhost' ? localhostDns : []);

let app: TestApp;
let tenant: Tenant;
let runId: string;

beforeAll(async () => {
  app = await startTestApp({ VENDOR_MAX_RETRIES: '0', VENDOR_BREAKER_THRESHOLD: '1000' }, { sandboxes: true, resolver });
  mcpSandbox(app);
  tenant = await upstreamTenant(app);
  await importTools(app, tenant, (await registerServer(app, tenant, { name: 'sbx', defaultRisk: 'low', defaultIdempotent: true })).id);
  await enableTool(app, tenant, WEATHER);
  runId = (await startExternalRun(app, tenant)).id;
  // The server's host is now a name (its DNS answer is the test's to change).
  const url = new URL(app.sandbox!.urlFor('mcp'));
  url.hostname = 'localhost';
  await app.em().nativeUpdate(UpstreamMcpServer, { orgId: tenant.orgId, name: 'sbx' }, { url: url.toString() });
});
afterAll(async () => app?.close());

test('a host that resolves to a refused address as well: the call fails connection_failed, the upstream sees nothing', async () => {
  localhostDns = ['127.0.0.1', '10.0.0.1'];
  const { answer } = await callUpstream(app, tenant, runId, WEATHER, { city: 'Lisbon' });
  expect(answer).toMatchObject({ status: 'failed', error: { code: 'VENDOR_ERROR' } });
  const call = await inspectUpstreamCall(app, tenant, answer.toolCallId);
  expect(call).toMatchObject({ status: 'failed', errorCode: 'VENDOR_ERROR', vendorStatusCode: null });
  expect(toolCallsSeen(app)).toEqual([]);
});

test('the same host resolving to allowed addresses only: the call goes through', async () => {
  localhostDns = ['127.0.0.1'];
  const { answer } = await callUpstream(app, tenant, runId, WEATHER, { city: 'Lisbon' });
  expect(answer).toMatchObject({ status: 'succeeded', result: { city: 'Lisbon' } });
  expect(toolCallsSeen(app)).toHaveLength(1);
});
