import { randomBytes, randomUUID } from 'node:crypto';
import {
  openCredential,
  rewrapCredential,
  sealCredential,
  type CredentialEnvelope,
  type CredentialIdentity,
} from '../../src/credentials/credential-envelope';
import { MasterKeyring } from '../../src/credentials/keyring';
import { openJson, sealJson } from '../../src/credentials/sealed-json';
import { AppError } from '../../src/errors/app-error';

const v1 = { version: 1, key: randomBytes(32) };
const v2 = { version: 2, key: randomBytes(32) };
const ringV1 = new MasterKeyring([v1]);
const ringBoth = new MasterKeyring([v1, v2]);
const ringV2Only = new MasterKeyring([v2]);
const id: CredentialIdentity = { orgId: randomUUID(), credentialId: randomUUID(), integrationType: 'shopify' };
const canary = `CANARY-${randomUUID()}`;
const config = { shopDomain: 'demo.myshopify.com', accessToken: canary, nested: { scopes: ['read_orders'] } };

function thrownCode(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? error.code : `not an AppError: ${String(error)}`;
  }
  return 'did not throw';
}

const b64 = (value: string) => Buffer.from(value, 'base64');
const truncateTag = (tag: string) => b64(tag).subarray(0, 12).toString('base64');
const flipFirstBit = (value: string) => {
  const bytes = b64(value);
  bytes[0] ^= 1;
  return bytes.toString('base64');
};

describe('credential envelope', () => {
  test('round trips, wrapped by the newest master key', () => {
    const envelope = sealCredential(ringBoth, id, config);
    expect(envelope.format).toBe('envelope-v1');
    expect(envelope.keyVersion).toBe(2);
    expect(openCredential(ringBoth, { ...id }, envelope)).toEqual(config);
  });

  test('holds no plaintext, and every seal uses fresh data keys and 12-byte nonces with 16-byte tags', () => {
    const envelopes = Array.from({ length: 10 }, () => sealCredential(ringV1, id, config));
    for (const envelope of envelopes) {
      const text = JSON.stringify(envelope);
      expect(text).not.toContain(canary);
      expect(text).not.toContain('accessToken');
      for (const part of [envelope.wrappedKey, envelope.config]) {
        expect(b64(part.iv)).toHaveLength(12);
        expect(b64(part.tag)).toHaveLength(16);
      }
    }
    expect(new Set(envelopes.map((e) => e.wrappedKey.ciphertext)).size).toBe(envelopes.length);
    expect(new Set(envelopes.map((e) => e.config.iv)).size).toBe(envelopes.length);
  });

  test.each<[string, Partial<CredentialIdentity>]>([
    ['another org', { orgId: randomUUID() }],
    ['another credential row', { credentialId: randomUUID() }],
    ['another integration type', { integrationType: 'amazon' }],
  ])('a ciphertext moved to %s does not open', (_label, change) => {
    const envelope = sealCredential(ringV1, id, config);
    expect(thrownCode(() => openCredential(ringV1, { ...id, ...change }, envelope))).toBe('CREDENTIALS_UNREADABLE');
  });

  test('relabelling the key version breaks the wrap (the version is authenticated)', () => {
    const envelope = sealCredential(ringV1, id, config);
    const relabelled: CredentialEnvelope = { ...envelope, keyVersion: 2 };
    const sameKeyUnderV2 = new MasterKeyring([v1, { version: 2, key: v1.key }]);
    expect(thrownCode(() => openCredential(sameKeyUnderV2, id, relabelled))).toBe('CREDENTIALS_UNREADABLE');
  });

  test.each(['wrappedKey', 'config'] as const)('a truncated tag on %s is refused', (part) => {
    const envelope = sealCredential(ringV1, id, config);
    const tampered = { ...envelope, [part]: { ...envelope[part], tag: truncateTag(envelope[part].tag) } };
    expect(thrownCode(() => openCredential(ringV1, id, tampered))).toBe('CREDENTIALS_UNREADABLE');
  });

  test.each(['wrappedKey', 'config'] as const)('a flipped ciphertext bit in %s is detected', (part) => {
    const envelope = sealCredential(ringV1, id, config);
    const tampered = { ...envelope, [part]: { ...envelope[part], ciphertext: flipFirstBit(envelope[part].ciphertext) } };
    expect(thrownCode(() => openCredential(ringV1, id, tampered))).toBe('CREDENTIALS_UNREADABLE');
  });

  test('a wrong master key, an unknown version or a foreign format is unreadable', () => {
    const envelope = sealCredential(ringV1, id, config);
    expect(thrownCode(() => openCredential(new MasterKeyring([{ version: 1, key: randomBytes(32) }]), id, envelope))).toBe('CREDENTIALS_UNREADABLE');
    expect(thrownCode(() => openCredential(ringV2Only, id, envelope))).toBe('CREDENTIALS_UNREADABLE');
    expect(thrownCode(() => openCredential(ringV1, id, { ...envelope, format: 'other' } as never))).toBe('CREDENTIALS_UNREADABLE');
  });

  test('rotation re-wraps the data key only; after it the old version can be retired', () => {
    const envelope = sealCredential(ringV1, id, config);
    const rotated = rewrapCredential(ringBoth, id, envelope);
    expect(rotated.keyVersion).toBe(2);
    expect(rotated.config).toEqual(envelope.config);
    expect(rotated.wrappedKey).not.toEqual(envelope.wrappedKey);
    expect(openCredential(ringV2Only, id, rotated)).toEqual(config);
    expect(thrownCode(() => openCredential(ringV2Only, id, envelope))).toBe('CREDENTIALS_UNREADABLE');
  });
});

describe('MasterKeyring', () => {
  test('the newest version is current, whatever the order given', () => {
    expect(new MasterKeyring([v2, v1]).current.version).toBe(2);
    expect(new MasterKeyring([v1, v2]).versions).toEqual([2, 1]);
  });

  test('refuses duplicate versions and short keys', () => {
    expect(() => new MasterKeyring([v1, { version: 1, key: randomBytes(32) }])).toThrow();
    expect(() => new MasterKeyring([{ version: 1, key: randomBytes(16) }])).toThrow();
    expect(() => new MasterKeyring([])).toThrow();
  });
});

describe('sealed JSON (approval params)', () => {
  test('opens only with the same key and purpose', () => {
    const sealed = sealJson(v1.key, 1, 'purpose-a', { amount: 10 });
    expect(openJson(v1.key, 'purpose-a', sealed)).toEqual({ amount: 10 });
    expect(thrownCode(() => openJson(v1.key, 'purpose-b', sealed))).toBe('CREDENTIALS_UNREADABLE');
    expect(thrownCode(() => openJson(v2.key, 'purpose-a', sealed))).toBe('CREDENTIALS_UNREADABLE');
    expect(thrownCode(() => openJson(v1.key, 'purpose-a', { ...sealed, tag: truncateTag(sealed.tag) }))).toBe('CREDENTIALS_UNREADABLE');
  });
});
