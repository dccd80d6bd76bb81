import { startTestApp, type TestApp } from './support/app';
import { newOrg } from './support/factories';
import { ViewerDocument } from '../gql/graphql';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

test("viewer answers with the key's org", async () => {
  const owner = await newOrg(app.em(), 'Smoke');
  const res = await app.gql(ViewerDocument, { key: owner.keys.admin });
  expect(res.body).toEqual({
    data: { viewer: { role: 'admin', apiKeyId: expect.any(String), org: { id: owner.org.id, name: 'Smoke' }, person: null } },
  });
});
