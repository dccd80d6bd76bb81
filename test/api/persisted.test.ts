import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSchema } from 'graphql';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import { apqHash, documentId, get, post, runOverSocket, socket, textOf, type RawResponse } from '../support/graphql-http';
import * as generated from '../../gql/graphql';
import { LedgerEventsDocument, ViewerDocument } from '../../gql/graphql';
import * as partnerGenerated from '../../gql/partner/graphql';
import { PartnerRunToolCallsDocument, PartnerRunsDocument, PartnerToolCallDocument, PartnerViewerDocument } from '../../gql/partner/graphql';
import partnerManifestJson from '../../gql/partner/persisted-documents.json';
import manifestJson from '../../gql/persisted-documents.json';
import { PersistedDocuments, manifestFiles, sha256Hex } from '../../src/api/persisted-documents';
import { buildToolgateSchema } from '../../src/api/schema';

// Partner keys run manifest operations by id and nothing else; first-party keys may also
// send text and use Apollo's automatic persisted queries (APQ).
let app: TestApp;
let owner: TestOrg;
let runId: string;
let callId: string;
const sockets: { close: () => Promise<void> }[] = [];

beforeAll(async () => {
  app = await startTestApp({}, { trustedDocuments: true });
  owner = await newOrg(app.em(), 'Partner Org');
  const run = await newRun(app.em(), owner);
  runId = run.id;
  callId = (await newToolCall(app.em(), owner, run)).call.id;
});
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((s) => s.close()));
});
afterAll(async () => app?.close());

const code = (res: RawResponse) => res.body.errors?.[0]?.extensions?.code;

// Text documents here are what the guard must refuse or hash (arbitrary, broken, tampered); manifest operations are the typed ones from gql/.
function expectRefused(res: RawResponse, expected: string): void {
  expect([res.status, code(res)]).toEqual([400, expected]);
  expect(res.body).not.toHaveProperty('data');
}

describe('a partner key runs manifest operations by id', () => {
  test('PartnerRuns by documentId (POST)', async () => {
    const res = await post(app.url, { documentId: documentId(PartnerRunsDocument), variables: { first: 5 } }, { key: owner.keys.partner });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.runs.totalCount).toBe(1);
    expect(res.body.data!.runs.edges[0].node).toMatchObject({ id: runId, status: 'completed' });
  });

  test('PartnerToolCall and PartnerRunToolCalls by documentId', async () => {
    const call = await post(app.url, { documentId: documentId(PartnerToolCallDocument), variables: { id: callId } }, { key: owner.keys.partner });
    expect(call.body.errors).toBeUndefined();
    expect(call.body.data!.toolCall).toMatchObject({ id: callId, runId, toolName: 'order_lookup', status: 'succeeded' });

    const history = await post(app.url, { documentId: documentId(PartnerRunToolCallsDocument), variables: { runId } }, { key: owner.keys.partner });
    expect(history.body.errors).toBeUndefined();
    expect(history.body.data!.run.id).toBe(runId);
    expect(history.body.data!.toolCalls.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([callId]);
  });

  test("by Apollo's extensions.persistedQuery, with the bare hex or the sha256: form", async () => {
    for (const sha256Hash of [apqHash(PartnerViewerDocument), documentId(PartnerViewerDocument)]) {
      const res = await post(app.url, { extensions: { persistedQuery: { version: 1, sha256Hash } } }, { key: owner.keys.partner });
      expect([res.status, res.body.data?.viewer]).toEqual([
        200,
        { apiKeyId: expect.any(String), org: { id: owner.org.id, name: 'Partner Org' }, role: 'partner' },
      ]);
    }
  });

  test('by GET ?documentId= (with a CSRF preflight header)', async () => {
    const res = await get(
      app.url,
      { documentId: documentId(PartnerRunsDocument), variables: { first: 1 } },
      { key: owner.keys.partner, headers: { 'apollo-require-preflight': 'true' } },
    );
    expect(res.status).toBe(200);
    expect(res.body.data!.runs.edges).toHaveLength(1);
  });

  test('a first-party operation is not in the partner manifest: its id is unknown to partner keys', async () => {
    const res = await post(app.url, { documentId: documentId(LedgerEventsDocument) }, { key: owner.keys.partner });
    expect(code(res)).toBe('PERSISTED_QUERY_NOT_FOUND');
    const apq = await post(
      app.url,
      { extensions: { persistedQuery: { version: 1, sha256Hash: apqHash(ViewerDocument) } } },
      { key: owner.keys.partner },
    );
    expect(code(apq)).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  test('a manifest operation still answers to the role checks', async () => {
    const res = await post(app.url, { documentId: documentId(LedgerEventsDocument) }, { key: owner.keys.agent });
    expect(code(res)).toBe('FORBIDDEN');
  });
});

describe('and nothing else', () => {
  test('query text is PERSISTED_QUERY_NOT_ALLOWED, even the text of a manifest operation', async () => {
    expectRefused(await post(app.url, { query: textOf(PartnerRunsDocument) }, { key: owner.keys.partner }), 'PERSISTED_QUERY_NOT_ALLOWED');
    const manifestText = manifestJson[documentId(ViewerDocument) as keyof typeof manifestJson];
    expectRefused(await post(app.url, { query: manifestText }, { key: owner.keys.partner }), 'PERSISTED_QUERY_NOT_ALLOWED');
  });

  test('text is refused before it is parsed or validated', async () => {
    expectRefused(await post(app.url, { query: '{ runs { ' }, { key: owner.keys.partner }), 'PERSISTED_QUERY_NOT_ALLOWED');
    expectRefused(await post(app.url, { query: '{ noSuchField }' }, { key: owner.keys.partner }), 'PERSISTED_QUERY_NOT_ALLOWED');
    expectRefused(
      await post(app.url, { query: `{ ${'viewer { role } '.repeat(2000)} }` }, { key: owner.keys.partner }),
      'PERSISTED_QUERY_NOT_ALLOWED',
    );
  });

  test('text alongside a valid id or a manifest hash is refused (and registers nothing)', async () => {
    const text = textOf(ViewerDocument);
    expectRefused(
      await post(app.url, { query: text, documentId: documentId(ViewerDocument) }, { key: owner.keys.partner }),
      'PERSISTED_QUERY_NOT_ALLOWED',
    );
    const hash = sha256Hex(text);
    expectRefused(
      await post(app.url, { query: text, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }, { key: owner.keys.partner }),
      'PERSISTED_QUERY_NOT_ALLOWED',
    );
    // Not registered: the hash of that text is still unknown, to the partner and to Apollo's APQ cache.
    expectRefused(
      await post(app.url, { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }, { key: owner.keys.partner }),
      'PERSISTED_QUERY_NOT_FOUND',
    );
    const firstParty = await post(app.url, { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }, { key: owner.keys.admin });
    expect(code(firstParty)).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  test('an unknown or malformed id is PERSISTED_QUERY_NOT_FOUND', async () => {
    for (const id of [`sha256:${'0'.repeat(64)}`, 'sha256:nothex', 'custom-id', apqHash(ViewerDocument).toUpperCase(), 42]) {
      expectRefused(await post(app.url, { documentId: id }, { key: owner.keys.partner }), 'PERSISTED_QUERY_NOT_FOUND');
    }
    expectRefused(
      await post(app.url, { extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } }, { key: owner.keys.partner }),
      'PERSISTED_QUERY_NOT_FOUND',
    );
  });

  test('an APQ entry a first-party key registered is not reachable by a partner', async () => {
    const query = '{ viewer { role org { name } } }';
    const sha256Hash = sha256Hex(query);
    const registered = await post(app.url, { query, extensions: { persistedQuery: { version: 1, sha256Hash } } }, { key: owner.keys.admin });
    expect(registered.body.data?.viewer.role).toBe('admin');
    const hit = await post(app.url, { extensions: { persistedQuery: { version: 1, sha256Hash } } }, { key: owner.keys.expert });
    expect(hit.body.data?.viewer.role).toBe('expert');
    expectRefused(
      await post(app.url, { extensions: { persistedQuery: { version: 1, sha256Hash } } }, { key: owner.keys.partner }),
      'PERSISTED_QUERY_NOT_FOUND',
    );
  });

  test('GET with query text, or with nothing, is refused', async () => {
    const headers = { 'apollo-require-preflight': 'true' };
    expectRefused(await get(app.url, { query: '{ viewer { role } }' }, { key: owner.keys.partner, headers }), 'PERSISTED_QUERY_NOT_ALLOWED');
    expectRefused(await get(app.url, {}, { key: owner.keys.partner, headers }), 'PERSISTED_QUERY_NOT_ALLOWED');
    expectRefused(await post(app.url, { variables: {} }, { key: owner.keys.partner }), 'PERSISTED_QUERY_NOT_ALLOWED');
  });

  test('other roles are not restricted by default', async () => {
    for (const role of ['admin', 'expert', 'client', 'agent'] as const) {
      const res = await post(app.url, { query: textOf(ViewerDocument) }, { key: owner.keys[role] });
      expect([role, res.body.data?.viewer.role]).toEqual([role, role]);
    }
  });
});

describe('over graphql-ws', () => {
  test('a partner runs manifest operations by documentId or persistedQuery hash', async () => {
    const ws = socket(app.wsUrl, owner.keys.partner);
    sockets.push(ws);
    const byId = await runOverSocket(ws.client, { documentId: documentId(PartnerRunsDocument), variables: { first: 1 } });
    expect(byId.kind === 'result' && byId.result.data?.runs.edges[0].node.id).toBe(runId);
    const byHash = await runOverSocket(ws.client, { extensions: { persistedQuery: { version: 1, sha256Hash: apqHash(PartnerViewerDocument) } } });
    expect(byHash.kind === 'result' && byHash.result.data?.viewer.role).toBe('partner');
  });

  test('text and unknown ids are refused with an error message; the socket stays open', async () => {
    const ws = socket(app.wsUrl, owner.keys.partner);
    sockets.push(ws);
    const text = await runOverSocket(ws.client, { query: '{ viewer { role } }' });
    expect(text).toEqual({ kind: 'error', errors: [expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_NOT_ALLOWED' } })] });
    const unknown = await runOverSocket(ws.client, { documentId: `sha256:${'1'.repeat(64)}` });
    expect(unknown).toEqual({ kind: 'error', errors: [expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } })] });
    const firstParty = await runOverSocket(ws.client, { documentId: documentId(ViewerDocument) });
    expect(firstParty).toEqual({ kind: 'error', errors: [expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } })] });
    const after = await runOverSocket(ws.client, { documentId: documentId(PartnerViewerDocument) });
    expect(after.kind === 'result' && after.result.data?.viewer.role).toBe('partner');
  });

  test('a first-party key may send text or ids', async () => {
    const ws = socket(app.wsUrl, owner.keys.client);
    sockets.push(ws);
    const text = await runOverSocket(ws.client, { query: textOf(ViewerDocument) });
    expect(text.kind === 'result' && text.result.data?.viewer.role).toBe('client');
    const byId = await runOverSocket(ws.client, { documentId: documentId(ViewerDocument) });
    expect(byId.kind === 'result' && byId.result.data?.viewer.role).toBe('client');
  });
});

describe('first-party keys', () => {
  test('run manifest operations by documentId, by GET too', async () => {
    const res = await post(app.url, { documentId: documentId(PartnerRunsDocument) }, { key: owner.keys.admin });
    expect(res.body.data!.runs.totalCount).toBe(1);
    const viaGet = await get(
      app.url,
      { documentId: documentId(ViewerDocument) },
      { key: owner.keys.admin, headers: { 'apollo-require-preflight': 'true' } },
    );
    expect(viaGet.body.data!.viewer.role).toBe('admin');
  });

  test('an unknown documentId is PERSISTED_QUERY_NOT_FOUND; documentId with query is a bad request', async () => {
    expectRefused(await post(app.url, { documentId: `sha256:${'2'.repeat(64)}` }, { key: owner.keys.admin }), 'PERSISTED_QUERY_NOT_FOUND');
    expectRefused(
      await post(app.url, { documentId: documentId(ViewerDocument), query: textOf(ViewerDocument) }, { key: owner.keys.admin }),
      'BAD_REQUEST',
    );
  });

  test('automatic persisted queries: an unknown hash, then register, then hit', async () => {
    const query = `{ viewer { role } toolCatalog { name } }`;
    const sha256Hash = sha256Hex(query);
    const miss = await post(app.url, { extensions: { persistedQuery: { version: 1, sha256Hash } } }, { key: owner.keys.agent });
    expect(code(miss)).toBe('PERSISTED_QUERY_NOT_FOUND');
    const register = await post(app.url, { query, extensions: { persistedQuery: { version: 1, sha256Hash } } }, { key: owner.keys.agent });
    expect(register.body.errors).toBeUndefined();
    const hit = await post(app.url, { extensions: { persistedQuery: { version: 1, sha256Hash } } }, { key: owner.keys.agent });
    expect(hit.body.data?.viewer.role).toBe('agent');
    const wrongHash = await post(
      app.url,
      { query, extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } },
      { key: owner.keys.agent },
    );
    expectRefused(wrongHash, 'BAD_REQUEST');
    const wrongVersion = await post(app.url, { query, extensions: { persistedQuery: { version: 2, sha256Hash } } }, { key: owner.keys.agent });
    expectRefused(wrongVersion, 'BAD_REQUEST');
  });
});

describe('the manifest', () => {
  test.each([
    ['gql/', generated, manifestJson, 7],
    ['gql/partner/', partnerGenerated, partnerManifestJson, 4],
  ] as const)('holds every typed document of %s, under the hash embedded in it', (_dir, module, json, atLeast) => {
    const documents = Object.entries(module).filter(([name]) => name.endsWith('Document'));
    expect(documents.length).toBeGreaterThanOrEqual(atLeast);
    const manifest = new Map(Object.entries(json));
    for (const [name, document] of documents) {
      const id = documentId(document as never);
      expect([name, manifest.has(id)]).toEqual([name, true]);
      expect(sha256Hex(manifest.get(id)!)).toBe(id.slice('sha256:'.length));
    }
    expect(manifest.size).toBe(documents.length);
  });

  test('loads at boot and is checked against the schema', async () => {
    const schema = await buildToolgateSchema();
    const loaded = PersistedDocuments.load(manifestFiles(), schema);
    expect(loaded.size).toBe(Object.keys(manifestJson).length + Object.keys(partnerManifestJson).length);
    expect(loaded.find(documentId(PartnerRunsDocument))).toMatchObject({ operationType: 'query', operationName: 'PartnerRuns', audience: 'partner' });
    expect(loaded.find(documentId(ViewerDocument), 'partner')).toBeUndefined();
    expect(loaded.find(documentId(ViewerDocument))).toMatchObject({ operationName: 'Viewer', audience: 'first-party' });
    expect(loaded.find(apqHash(PartnerRunsDocument))?.operationName).toBe('PartnerRuns');
  });

  test('a tampered, stale or malformed manifest stops the boot', async () => {
    const schema = await buildToolgateSchema();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-manifest-'));
    const write = (content: unknown) => {
      const file = path.join(dir, `${Math.random()}.json`);
      fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
      return file;
    };
    const text = '{ viewer { role } }';
    const tampered = write({ [`sha256:${sha256Hex(text)}`]: '{ viewer { role apiKeyId } }' });
    const stale = write({ [`sha256:${sha256Hex('{ gone }')}`]: '{ gone }' });
    const two = write({
      [`sha256:${sha256Hex('query A { viewer { role } } query B { viewer { role } }')}`]: 'query A { viewer { role } } query B { viewer { role } }',
    });
    expect(() => PersistedDocuments.load([{ file: tampered, audience: 'partner' }], schema)).toThrow(/not the SHA-256/);
    expect(() => PersistedDocuments.load([{ file: stale, audience: 'partner' }], schema)).toThrow(/does not validate/);
    expect(() => PersistedDocuments.load([{ file: two, audience: 'partner' }], schema)).toThrow(/exactly one operation/);
    expect(() => PersistedDocuments.load([{ file: write('[]'), audience: 'partner' }], schema)).toThrow(/not a JSON object/);
    expect(() =>
      PersistedDocuments.load([{ file: path.join(dir, 'missing.json'), audience: 'first-party' }], buildSchema('type Query { a: Int }')),
    ).toThrow(/cannot read/);
    await expect(startTestApp({ PERSISTED_DOCUMENTS_FILE: path.join(dir, 'missing.json') })).rejects.toThrow(/persisted-documents manifest/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
