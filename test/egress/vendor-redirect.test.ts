import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchJson } from '../../src/vendors/http';
import { systemClock } from '../../src/support/clock';

/**
 * Vendor calls never follow a redirect: a vendor host that answers 302 to another origin must
 * not make Toolgate send `x-shopify-access-token` (or `x-amz-access-token`) there; the
 * redirect is the vendor's answer, a VendorHttpError.
 */
async function serve(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const stolen: http.IncomingHttpHeaders[] = [];
let elsewhere: Awaited<ReturnType<typeof serve>>;
let vendor: Awaited<ReturnType<typeof serve>>;

beforeAll(async () => {
  elsewhere = await serve((req, res) => {
    stolen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  vendor = await serve((_req, res) => res.writeHead(302, { location: `${elsewhere.url}/collect` }).end());
});
afterAll(async () => {
  for (const { server } of [elsewhere, vendor]) await new Promise((resolve) => server.close(resolve));
});

test.each([
  ['x-shopify-access-token', 'shpat_secret'],
  ['x-amz-access-token', 'Atza|secret'],
])('a redirect is not followed: %s never reaches another origin', async (header, token) => {
  const call = fetchJson(`${vendor.url}/admin/api/graphql.json`, {
    method: 'POST',
    headers: { [header]: token },
    body: '{}',
    signal: new AbortController().signal,
    clock: systemClock,
  });
  await expect(call).rejects.toMatchObject({ name: 'VendorHttpError', status: 302 });
  expect(stolen).toEqual([]);
});
