import { useDemoApp } from '../support/demo-fixture';
import { createKey } from '../../src/orgs/org.service';
import { post as postGraphQL } from '../support/graphql-http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { INITIALIZE, mcpUrl } from './mcp-helpers';

/**
 * Fair use at /mcp (issue 29, item 3): the per-key budget and per-address limit GraphQL
 * charges, with the same header fields and codes; a cap on sessions and on open runs per key.
 * 100 points a window of 100 s: longer than the test, so nothing is given back meanwhile.
 */
const demo = useDemoApp(
  {
    RATE_LIMIT_POINTS: '100',
    RATE_LIMIT_POINTS_PER_SECOND: '1',
    GRAPHQL_MAX_COST: '100',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3',
    MCP_MAX_SESSIONS_PER_KEY: '2',
    MCP_MAX_OPEN_RUNS_PER_KEY: '3',
  },
  { sandboxes: true },
);

interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** A raw JSON-RPC POST to /mcp/<path> (the SDK client hides the status and header fields). */
async function post(path: string, body: unknown, key?: string, sessionId?: string, method = 'POST'): Promise<RawAnswer> {
  const response = await fetch(mcpUrl(demo.app, path), {
    method,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: method === 'POST' ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const agentKey = async () => (await createKey(demo.app.em(), demo.seed.orgId, 'agent')).secret;
const issueAgentKey = () => createKey(demo.app.em(), demo.seed.orgId, 'agent');
/** The open external runs a key opened (from their run.created events). */
const openRunsOf = async (keyId: string) =>
  (
    await demo.app
      .em()
      .getConnection()
      .execute<{ id: string }[]>(
        `select r.id from agent_runs r join ledger_events e on e.run_id = r.id and e.type = 'run.created'
          where e.actor_key_id = ? and r.status in ('running', 'waiting_approval') order by r.created_at`,
        [keyId],
      )
  ).map((row) => row.id);
const toolCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'payroll.run', arguments: {} } });
const rpcCode = (answer: RawAnswer) => (JSON.parse(answer.text) as { error?: { data?: { code?: string } } }).error?.data?.code;

describe('/mcp is charged to the key budget GraphQL charges', () => {
  test('1 point a message, 10 a tools/call; over budget 429 RATE_LIMITED with Retry-After and RateLimit; a cheaper message still fits', async () => {
    const key = await agentKey();
    const path = `specialists/${demo.seed.specialistId}`;
    const opened = await post(path, INITIALIZE, key);
    expect([opened.status, opened.headers.get('ratelimit-policy'), opened.headers.get('ratelimit')]).toEqual([
      200,
      '"key";q=100;w=100',
      expect.stringMatching(/^"key";r=99;t=\d+$/),
    ]);
    const session = opened.headers.get('mcp-session-id')!;
    expect(session).toEqual(expect.any(String));
    for (let i = 0; i < 9; i++) expect((await post(path, toolCall(i + 2), key, session)).status).toBe(200); // 90 points: 9 left
    const refused = await post(path, toolCall(20), key, session);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.headers.get('ratelimit')).toMatch(/^"key";r=9;t=\d+$/);
    expect(refused.headers.get('ratelimit-policy')).toBe('"key";q=100;w=100');
    expect(JSON.parse(refused.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, data: { code: 'RATE_LIMITED' } }, id: null });
    const cheaper = await post(path, { jsonrpc: '2.0', id: 21, method: 'tools/list' }, key, session);
    expect([cheaper.status, cheaper.headers.get('ratelimit')]).toEqual([200, expect.stringMatching(/^"key";r=8;/)]);
    // The budget is the key's, whichever door: GraphQL now has 8 points for it too.
    const graphql = await postGraphQL(demo.app.url, { query: '{ viewer { role } }' }, { key });
    expect([graphql.status, graphql.headers.get('ratelimit')]).toEqual([200, expect.stringMatching(/^"key";r=7;/)]);
  });

  test('a stateless (2026-07-28) client is charged the same: each answer carries the RateLimit fields', async () => {
    const key = await agentKey();
    const seen: (string | null)[] = [];
    const client = new Client({ name: 'fair-use', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new StreamableHTTPClientTransport(mcpUrl(demo.app, `specialists/${demo.seed.specialistId}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        seen.push(response.headers.get('ratelimit'));
        return response;
      },
    });
    await client.connect(transport);
    await client.callTool({ name: 'payroll.run', arguments: {} });
    await client.close();
    expect(seen.length).toBeGreaterThan(0);
    const remaining = seen.map((header) => Number(/^"key";r=(\d+);t=\d+$/.exec(header ?? '')?.[1]));
    expect(remaining.every(Number.isFinite)).toBe(true);
    // The tools/call took 10 points.
    expect(remaining.at(-2)! - remaining.at(-1)!).toBe(10);
  });

  test('requests without a valid key are limited per address: 401, then 429 with Retry-After', async () => {
    const path = `specialists/${demo.seed.specialistId}`;
    for (let i = 0; i < 3; i++) {
      const answer = await post(path, INITIALIZE, i === 0 ? undefined : 'tg_not_a_key');
      expect([answer.status, rpcCode(answer)]).toEqual([401, 'UNAUTHENTICATED']);
    }
    const refused = await post(path, INITIALIZE);
    expect([refused.status, rpcCode(refused)]).toEqual([429, 'RATE_LIMITED']);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.headers.get('ratelimit-policy')).toBe('"anonymous";q=3;w=60');
  });
});

describe('caps on what a key holds open at /mcp', () => {
  const specialist = () => `specialists/${demo.seed.specialistId}`;

  test('sessions per key (MCP_MAX_SESSIONS_PER_KEY=2): the third initialize is 429 MCP_SESSION_LIMIT and opens no run; a closed session frees its slot', async () => {
    const key = await issueAgentKey();
    const first = await post(specialist(), INITIALIZE, key.secret);
    const second = await post(specialist(), INITIALIZE, key.secret);
    expect([first.status, second.status]).toEqual([200, 200]);
    const refused = await post(specialist(), INITIALIZE, key.secret);
    expect([refused.status, rpcCode(refused)]).toEqual([429, 'MCP_SESSION_LIMIT']);
    expect(JSON.parse(refused.text).error.message).toMatch(/2 MCP sessions/);
    expect(await openRunsOf(key.id)).toHaveLength(2);
    // Another key of the same org has slots of its own.
    expect((await post(specialist(), INITIALIZE, await agentKey())).status).toBe(200);

    const closed = await post(specialist(), null, key.secret, first.headers.get('mcp-session-id')!, 'DELETE');
    expect(closed.status).toBe(200);
    expect((await post(specialist(), INITIALIZE, key.secret)).status).toBe(200);
    await post(specialist(), null, key.secret, second.headers.get('mcp-session-id')!, 'DELETE');
  });

  test('open runs per key (MCP_MAX_OPEN_RUNS_PER_KEY=3): a session that would open a fourth is 429 MCP_RUN_LIMIT; a cancelled run frees its slot', async () => {
    const key = await issueAgentKey();
    for (let i = 0; i < 3; i++) {
      const opened = await post(specialist(), INITIALIZE, key.secret);
      expect(opened.status).toBe(200);
      // The session ends; the run it opened stays open.
      expect((await post(specialist(), null, key.secret, opened.headers.get('mcp-session-id')!, 'DELETE')).status).toBe(200);
    }
    const runs = await openRunsOf(key.id);
    expect(runs).toHaveLength(3);
    const refused = await post(specialist(), INITIALIZE, key.secret);
    expect([refused.status, rpcCode(refused)]).toEqual([429, 'MCP_RUN_LIMIT']);
    expect(await openRunsOf(key.id)).toEqual(runs);

    const cancel = await postGraphQL(
      demo.app.url,
      { query: 'mutation($runId: ID!) { cancelRun(runId: $runId) { status } }', variables: { runId: runs[0] } },
      { key: demo.seed.keys.admin },
    );
    expect(cancel.body.data?.cancelRun.status).toBe('cancelled');
    const again = await post(specialist(), INITIALIZE, key.secret);
    expect(again.status).toBe(200);
    await post(specialist(), null, key.secret, again.headers.get('mcp-session-id')!, 'DELETE');
  });
});
