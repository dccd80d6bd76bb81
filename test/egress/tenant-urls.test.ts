import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { useDemoApp } from '../support/demo-fixture';
import { errorCode } from '../support/app';
import { CreateWebhookEndpointDocument, WebhookDeliveriesDocument } from '../../gql/graphql';
import { IMPORT_MCP_TOOLS, MCP_SERVERS, REGISTER_MCP_SERVER } from '../upstream/upstream-helpers';
import { failRun } from '../../src/runs/run-state';
import { WebhookDelivery } from '../../src/webhooks/webhook-delivery.entity';
import type { EgressResolver } from '../../src/egress/egress';

/**
 * The egress policy on tenant URLs, through the API: webhook endpoints and upstream MCP
 * servers. The operator opened one loopback address (127.0.0.2, where the "allowed" servers
 * listen); 127.0.0.1 stands for the operator's network: a listener there records whatever
 * reaches it, and must see nothing.
 */
const ALLOWED_HOST = '127.0.0.2';

/** `loopback.test` resolves to loopback; `rebind.test` first to a public address, then to loopback. */
const answers: Record<string, string[][]> = {};
const resolver: EgressResolver = async (hostname) => {
  const queue = answers[hostname];
  if (!queue || queue.length === 0) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return queue.length > 1 ? queue.shift()! : queue[0];
};

const demo = useDemoApp({ EGRESS_ALLOW_CIDRS: `${ALLOWED_HOST}/32` }, { resolver });

/** A server on `host` that records each request and answers with `answer`. */
async function listener(host: string, answer: (res: http.ServerResponse) => void) {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { seen, port, url: `http://${host}:${port}/hook`, close: () => new Promise((resolve) => server.close(resolve)) };
}

let internal: Awaited<ReturnType<typeof listener>>;
let redirector: Awaited<ReturnType<typeof listener>>;

beforeAll(async () => {
  internal = await listener('127.0.0.1', (res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  redirector = await listener(ALLOWED_HOST, (res) => {
    res.writeHead(307, { location: internal.url }).end();
  });
  answers['loopback.test'] = [['127.0.0.1']];
});
afterAll(async () => {
  await internal?.close();
  await redirector?.close();
});
afterEach(() => expect(internal.seen).toEqual([]));

const createEndpoint = (url: string) =>
  demo.app.gql(CreateWebhookEndpointDocument, { key: demo.seed.keys.admin, variables: { url, eventTypes: ['run_failed'] as never } });

let serverCount = 0;
const registerServer = (url: string) =>
  demo.app.gql(REGISTER_MCP_SERVER, {
    key: demo.seed.keys.admin,
    variables: { input: { name: `upstream_${++serverCount}`, url, defaultRisk: 'low' as const, defaultIdempotent: true } },
  });

const refusedUrls = () => [
  ['loopback', internal.url],
  ['RFC 1918', 'http://10.0.0.1/hook'],
  ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
  ['IPv6 loopback', `http://[::1]:${internal.port}/hook`],
  ['IPv4-mapped loopback', `http://[::ffff:127.0.0.1]:${internal.port}/hook`],
  ['a name resolving to loopback', `http://loopback.test:${internal.port}/hook`],
  ['a name that does not resolve', 'http://nowhere.test/hook'],
  ["the allowed address's neighbour", `http://127.0.0.3:${internal.port}/hook`],
];

test('registrations to refused hosts answer EGRESS_REFUSED, one message for every reason, and write nothing', async () => {
  const messages = new Set<string>();
  for (const [why, url] of refusedUrls()) {
    for (const response of [await createEndpoint(url), await registerServer(url)]) {
      expect({ why, code: errorCode(response) }).toEqual({ why, code: 'EGRESS_REFUSED' });
      messages.add(response.body.errors![0].message);
    }
  }
  expect(messages.size).toBe(1);
  expect([...messages][0]).not.toMatch(/127|10\.0|169|::1|resolve|loopback|private/i);
  const servers = await demo.app.gql(MCP_SERVERS, { key: demo.seed.keys.admin });
  expect(servers.body.data!.mcpServers).toEqual([]);
});

test('the allow list opens its address: an endpoint and a server there register', async () => {
  const endpoint = await createEndpoint(redirector.url);
  expect(endpoint.body.errors).toBeUndefined();
  const server = await registerServer(redirector.url);
  expect(server.body.errors).toBeUndefined();
});

/** Makes one run.failed delivery to the endpoint at `url` and runs its attempt; answers the attempt. */
async function deliverOnce(url: string) {
  const created = await createEndpoint(url);
  expect(created.body.errors).toBeUndefined();
  const endpointId = created.body.data!.createWebhookEndpoint.endpoint.id;
  const run = await demo.gw.startRun();
  await demo.app.em().transactional((tx) => failRun(tx, { id: run.id, orgId: demo.seed.orgId }, 'MODEL_UNAVAILABLE', 'down'));
  const delivery = await demo.app.em().findOneOrFail(WebhookDelivery, { endpointId });
  await demo.app.services.webhooks.deliver(delivery.id);
  const listed = await demo.app.gql(WebhookDeliveriesDocument, { key: demo.seed.keys.admin, variables: { endpointId } });
  return listed.body.data!.webhookDeliveries.edges[0].node.attempts[0];
}

test('a webhook receiver that redirects to loopback: not followed, the attempt is "unreachable" without HTTP detail', async () => {
  const attempt = await deliverOnce(redirector.url);
  expect(attempt).toMatchObject({ outcome: 'failed', httpStatus: null, errorCode: 'unreachable' });
  expect(redirector.seen).toHaveLength(1);
});

test('an MCP server that redirects to loopback: the import is refused EGRESS_REFUSED', async () => {
  redirector.seen.length = 0;
  const server = await registerServer(redirector.url);
  const imported = await demo.app.gql(IMPORT_MCP_TOOLS, { key: demo.seed.keys.admin, variables: { id: server.body.data!.registerMcpServer.id } });
  expect(errorCode(imported)).toBe('EGRESS_REFUSED');
  expect(imported.body.errors![0].extensions).not.toHaveProperty('vendorStatusCode');
});

test('DNS rebinding: a name checked public at registration that resolves to loopback later reaches nothing', async () => {
  const host = (name: string) => `http://${name}:${internal.port}/hook`;
  answers['hook.rebind.test'] = [['93.184.216.34'], ['127.0.0.1']];
  const attempt = await deliverOnce(host('hook.rebind.test'));
  expect(attempt).toMatchObject({ outcome: 'failed', httpStatus: null, errorCode: 'unreachable' });

  answers['mcp.rebind.test'] = [['93.184.216.34'], ['127.0.0.1']];
  const server = await registerServer(host('mcp.rebind.test'));
  expect(server.body.errors).toBeUndefined();
  const imported = await demo.app.gql(IMPORT_MCP_TOOLS, { key: demo.seed.keys.admin, variables: { id: server.body.data!.registerMcpServer.id } });
  expect(errorCode(imported)).toBe('EGRESS_REFUSED');
});

test('a closed port at an allowed address answers as a refused one: EGRESS_REFUSED at import, "unreachable" at delivery', async () => {
  // A port that was just free: nothing listens there.
  const closed = await listener(ALLOWED_HOST, (res) => res.end());
  await closed.close();
  const attempt = await deliverOnce(closed.url);
  expect(attempt).toMatchObject({ outcome: 'failed', httpStatus: null, errorCode: 'unreachable' });

  const server = await registerServer(closed.url);
  expect(server.body.errors).toBeUndefined();
  const imported = await demo.app.gql(IMPORT_MCP_TOOLS, { key: demo.seed.keys.admin, variables: { id: server.body.data!.registerMcpServer.id } });
  expect(errorCode(imported)).toBe('EGRESS_REFUSED');
  const refusedAtRegistration = await registerServer('http://10.0.0.1/mcp');
  expect(imported.body.errors![0].message).toBe(refusedAtRegistration.body.errors![0].message);
});
