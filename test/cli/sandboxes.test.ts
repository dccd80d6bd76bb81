import fs from 'node:fs';
import { CLI, childEnv, freePort, killChildren, spawnCli, waitFor, withTimeout, type Running } from '../support/processes';
import { servedSandboxes } from '../vendors/vendor-helpers';

/**
 * `toolgate sandboxes`: the vendor sandboxes in their own process (the compiled CLI, as a
 * user runs it; no database needed), its control API, and a clean exit on SIGTERM.
 */
let port: number;
let url: string;
let running: Running;

const { control, quickbooks } = servedSandboxes(() => url);

beforeAll(async () => {
  expect(fs.existsSync(CLI)).toBe(true);
  port = await freePort();
  url = `http://127.0.0.1:${port}`;
  // No DATABASE_URL and no master key: the command needs neither.
  running = spawnCli(
    ['sandboxes', '--port', String(port)],
    childEnv({ DATABASE_URL: undefined, MASTER_ENCRYPTION_KEY: undefined, NODE_ENV: 'test' }),
  );
  await waitFor('the sandboxes to announce their URL', async () => (running.stdout().includes('\n') ? true : undefined), 20_000, running);
}, 30_000);

afterAll(async () => {
  await killChildren();
});

describe('toolgate sandboxes', () => {
  test('announces where it serves on stdout', () => {
    expect(running.stdout()).toBe(`Vendor sandboxes serving ${url} (VENDOR_SANDBOX_URL=${url})\n`);
  });

  test('answers a vendor request and the control API (faults, requests, effects, reset)', async () => {
    expect((await control('POST', '/reset')).status).toBe(200);
    const accounts = await quickbooks('GET', '/query', { query: 'select * from Account' });
    expect(accounts.status).toBe(200);
    expect(((await accounts.json()) as any).QueryResponse.Account.length).toBeGreaterThan(0);

    const injected = await control('POST', '/faults', {
      vendor: 'nango',
      fault: { kind: 'status', status: 503 },
      pathIncludes: 'select * from Invoice',
    });
    expect(injected.status).toBe(201);
    expect((await quickbooks('GET', '/query', { query: "select * from Invoice where CustomerRef = '1'" })).status).toBe(503);

    const body = {
      Line: [{ DetailType: 'SalesItemLineDetail', Amount: 42, SalesItemLineDetail: { ItemRef: { value: '1' } } }],
      CustomerRef: { value: '1' },
      PrivateNote: 'toolgate:toolgate-cli',
    };
    for (let i = 0; i < 2; i++) expect((await quickbooks('POST', '/invoice', { requestid: 'toolgate-cli' }, body)).status).toBe(200);
    expect((await quickbooks('POST', '/invoice/130/send', { sendTo: 'a@b.co', requestid: 'toolgate-cli-send' })).status).toBe(200);

    const requests = (await control('GET', '/requests')).body.requests;
    expect(requests.map((r: any) => [r.method, r.path.split('/').pop(), r.fault, r.requestId])).toEqual([
      ['GET', 'query', null, null],
      ['GET', 'query', 'status', null],
      ['POST', 'invoice', null, 'toolgate-cli'],
      ['POST', 'invoice', null, 'toolgate-cli'],
      ['POST', 'send', null, 'toolgate-cli-send'],
    ]);
    expect(requests[1].query).toEqual({ query: "select * from Invoice where CustomerRef = '1'", minorversion: '75' });
    expect((await control('GET', '/effects')).body).toEqual({
      nango: [
        {
          invoiceId: '130',
          docNumber: '1037',
          customerId: '1',
          totalAmount: 42,
          privateNote: 'toolgate:toolgate-cli',
          requestId: 'toolgate-cli',
          emailsSent: 1,
        },
      ],
      mcp: [],
    });

    expect((await control('POST', '/faults', { vendor: 'nango', fault: { kind: 'hang' } })).status).toBe(201);
    expect((await control('DELETE', '/faults')).status).toBe(200);
    expect((await control('POST', '/reset')).status).toBe(200);
    expect((await control('GET', '/effects')).body).toEqual({ nango: [], mcp: [] });
    expect((await control('GET', '/requests')).body).toEqual({ requests: [] });
    expect((await quickbooks('GET', '/query', { query: 'select * from Account' })).status).toBe(200);
  });

  test('a bad --port is a usage error (exit 2)', async () => {
    const bad = spawnCli(['sandboxes', '--port', 'x'], childEnv({}));
    const result = await withTimeout(bad.exited, 20_000, () => 'toolgate sandboxes --port x did not exit');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port must be a port number');
  });

  test('exits 0 on SIGTERM', async () => {
    running.child.kill('SIGTERM');
    const result = await withTimeout(running.exited, 10_000, () => `did not exit on SIGTERM\nstderr: ${running.stderr()}`);
    expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    await expect(fetch(`${url}/_sandbox/requests`)).rejects.toThrow();
  });
});
