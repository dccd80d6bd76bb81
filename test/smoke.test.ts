import { startTestApp, type TestApp } from './support/app';
import { newOrg } from './support/factories';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

test("viewer answers with the key's org", async () => {
  const owner = await newOrg(app.em(), 'Smoke');
  const res = await app.gql('{ viewer { org { id name } role } }', { key: owner.keys.admin });
  expect(res.body).toEqual({ data: { viewer: { org: { id: owner.org.id, name: 'Smoke' }, role: 'admin' } } });
});
