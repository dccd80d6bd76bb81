import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { useDemoApp } from '../support/demo-fixture';

/**
 * The MCP conformance suite (@modelcontextprotocol/conformance) against /mcp, for the
 * scenarios that apply to a governed tool server: initialization, ping, tools/list, tool
 * errors, SSE streams and DNS-rebinding protection. The others exercise the reference
 * server's own features (resources, prompts, completion, logging, sampling, its test_*
 * tools), which Toolgate deliberately does not serve (README, "MCP"). The suite cannot send
 * an Authorization header: a loopback proxy adds the agent key, nothing else.
 */
const run = promisify(execFile);
const CLI = path.join(__dirname, '../../node_modules/@modelcontextprotocol/conformance/dist/index.js');
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'tools-call-error', 'server-sse-multiple-streams', 'dns-rebinding-protection'];

const demo = useDemoApp();
let proxy: http.Server;
let proxyUrl: string;
beforeAll(async () => {
  const target = new URL(`/mcp/specialists/${demo.seed.specialistId}`, demo.app.url);
  proxy = http.createServer((req, res) => {
    // The request as the suite sent it (its Host and Origin included), plus the key.
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: req.method,
        setHost: false,
        headers: { ...req.headers, authorization: `Bearer ${demo.seed.keys.agent}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => new Promise<void>((resolve) => proxy?.close(() => resolve())));

test.each(SCENARIOS)(
  'conformance scenario %s passes',
  async (scenario) => {
    // The suite needs Node 22+ (fs.globSync), as Toolgate does.
    const result = await run(process.execPath, [CLI, 'server', '--url', proxyUrl, '--scenario', scenario], { timeout: 60_000 }).catch(
      (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
    );
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(result.stdout);
    expect({ scenario, summary: summary?.[0], failures: result.stdout.split('=== Failed Checks ===')[1]?.trim() }).toEqual({
      scenario,
      summary: expect.stringMatching(/^Passed: (\d+)\/\1, 0 failed$/),
      failures: undefined,
    });
  },
  90_000,
);
