import { startTestApp, type TestApp } from '../support/app';

/**
 * The IDE's and the console's static files: a file that is not there is a 404, and the
 * IDE's folder itself leads to the IDE — never a 500 logged as an error (level 50).
 */
let app: TestApp;
let origin: string;

beforeAll(async () => {
  app = await startTestApp({}, { captureLogs: true });
  origin = new URL(app.url).origin;
});
afterAll(async () => app?.close());

const errorsLogged = () => app.logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((l) => l.level >= 50);

test.each(['/graphql-ide/missing.js', '/graphql-ide/nested/missing.css', '/console/assets/missing.js', '/console/assets/'])(
  '%s answers 404 and logs no error',
  async (path) => {
    const response = await fetch(`${origin}${path}`, { redirect: 'manual' });
    expect(response.status).toBe(404);
    expect(errorsLogged()).toEqual([]);
  },
);

test('/graphql-ide/ itself redirects to the IDE at /graphql', async () => {
  for (const path of ['/graphql-ide/', '/graphql-ide']) {
    const response = await fetch(`${origin}${path}`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/graphql');
  }
  expect(errorsLogged()).toEqual([]);
});

test('files that are there are still served', async () => {
  const init = await fetch(`${origin}/graphql-ide/init.js`);
  expect(init.status).toBe(200);
  const ruru = await fetch(`${origin}/graphql-ide/ruru.js`);
  expect(ruru.status).toBe(200);
  await ruru.body?.cancel();
});
