import fs from 'node:fs';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { canonicalColumns, ledgerHash, type LedgerRecord } from '../../src/ledger/ledger-hash';
import { canonicalJson } from '../../src/ledger/canonical-json';
import { keyIdOf, parseSigningKey, parseVerifyingKey } from '../../src/ledger/signing-key';
import { describeConfig, loadConfig } from '../../src/config';

/** The worked example of docs/ledger.md: the docs and the code hash the same. */
const EXAMPLE: LedgerRecord = {
  id: '42',
  orgId: '0b5e7c1a-3f7d-4c39-9a51-2f1c0e4d8a77',
  sequence: '7',
  hashVersion: 2,
  type: 'tool_call.requested',
  runId: '6d1f0a8e-93b2-4e57-b0c4-5a7e2d913f60',
  resourceId: 'c2a4e9f1-7b3d-4f08-8e65-1d9a0b7c3e52',
  actorRole: 'agent',
  actorKeyId: null,
  metadata: { tool: 'order_lookup.lookup', amount: 120.5 },
  createdAt: '2026-12-01T17:38:39.123456Z',
  prevHash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
};
const docs = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'ledger.md'), 'utf8');

test("docs/ledger.md's example: its canonical JSON and its hash", () => {
  const canonical = canonicalJson(canonicalColumns(EXAMPLE));
  expect(docs).toContain(`\n${canonical}\n`);
  const hash = ledgerHash(EXAMPLE);
  expect(hash).toBe('406c1cbecf4d22b8b856e4aa88d54f22e49a78f7a304f3284736d3c35bfde7ee');
  expect(docs).toContain(hash);
});

test('a version that does not exist hashes to nothing; version 1 refuses sub-millisecond digits', () => {
  expect(ledgerHash({ ...EXAMPLE, hashVersion: 3 })).toBeNull();
  expect(ledgerHash({ ...EXAMPLE, hashVersion: 1 })).toBeNull();
  expect(ledgerHash({ ...EXAMPLE, hashVersion: 1, createdAt: '2026-12-01T17:38:39.123000Z' })).toMatch(/^[0-9a-f]{64}$/);
});

describe('checkpoint keys', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pkcs8Pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const pkcs8Base64 = (privateKey.export({ type: 'pkcs8', format: 'der' }) as Buffer).toString('base64');
  const spkiPem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const spkiBase64 = (publicKey.export({ type: 'spki', format: 'der' }) as Buffer).toString('base64');

  test('PEM or base64, private or public: one key id', () => {
    const id = keyIdOf(publicKey);
    expect(id).toMatch(/^ed25519:[0-9a-f]{32}$/);
    expect(
      [
        parseSigningKey(pkcs8Pem),
        parseSigningKey(pkcs8Base64),
        parseVerifyingKey(spkiPem),
        parseVerifyingKey(spkiBase64),
        parseVerifyingKey(pkcs8Pem),
      ].map(keyIdOf),
    ).toEqual([id, id, id, id, id]);
  });

  test('another kind of key, or none, is refused; the configuration names the variable and never shows the key', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(() => parseSigningKey(rsa)).toThrow(/not Ed25519/);
    expect(() => loadConfig({ TOOLGATE_LEDGER_SIGNING_KEY: rsa })).toThrow(/TOOLGATE_LEDGER_SIGNING_KEY must be an Ed25519 private key/);
    expect(() => loadConfig({ TOOLGATE_LEDGER_SIGNING_KEY: 'not a key!' })).toThrow(/TOOLGATE_LEDGER_SIGNING_KEY/);
    const config = loadConfig({ TOOLGATE_LEDGER_SIGNING_KEY: pkcs8Base64 });
    expect(keyIdOf(config.ledgerSigningKey!)).toBe(keyIdOf(publicKey));
    const described = JSON.stringify(describeConfig(config));
    expect(described).toContain(keyIdOf(publicKey));
    expect(described).not.toContain(pkcs8Base64.slice(20, 40));
    expect(describeConfig(loadConfig({})).ledgerSigningKey).toBe('[unset]');
  });
});
