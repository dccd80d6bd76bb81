import { randomBytes } from 'node:crypto';
import { errorCode, startTestApp, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { PUT_CREDENTIAL } from '../support/documents';
import { ViewerDocument } from '../../gql/graphql';

// Secrets must never reach a log line: credential configs, API keys, or anything a
// client sends in variables or query text. Logs are captured at trace level and scanned
// for planted canaries.
let app: TestApp;
let owner: TestOrg;
const canary = `CANARY-${randomBytes(8).toString('hex')}`;

beforeAll(async () => {
  app = await startTestApp({}, { captureLogs: true });
  owner = await newOrg(app.em());
});
afterAll(async () => app?.close());

const PUT = PUT_CREDENTIAL;

test('no log line carries a credential, a key or client-sent text', async () => {
  const stored = await app.gql(PUT, { key: owner.keys.admin, variables: { type: 'shopify', config: { accessToken: canary } } });
  expect(stored.body.errors).toBeUndefined();

  const refused = await app.gql(PUT, { key: owner.keys.admin, variables: { type: 'Bad Type', config: { accessToken: canary } } });
  expect(errorCode(refused)).toBe('BAD_USER_INPUT');

  // A document that does not parse, with the canary in its text.
  const unparsable = await app.gql(`{ viewer { ${canary} `, { key: owner.keys.admin });
  expect(errorCode(unparsable)).toBe('GRAPHQL_PARSE_FAILED');

  const unknownKey = await app.gql(ViewerDocument, { key: `tg_admin_${canary}` });
  expect(unknownKey.status).toBe(401);

  const forbidden = await app.gql(PUT, { key: owner.keys.client, variables: { type: 'shopify', config: { accessToken: canary } } });
  expect(errorCode(forbidden)).toBe('FORBIDDEN');

  // The operations were logged (so the scan below looked at real output) ...
  const operations = app.logs.filter((line) => line.includes('"graphql operation"'));
  expect(operations.length).toBeGreaterThanOrEqual(3);
  expect(operations.some((line) => line.includes('"BAD_USER_INPUT"'))).toBe(true);
  // ... and none of them, nor anything else, holds a secret.
  const everything = app.logs.join('\n');
  expect(everything).not.toContain(canary);
  for (const secret of Object.values(owner.keys)) expect(everything).not.toContain(secret);
});
