import { randomBytes, randomUUID } from 'node:crypto';
import {
  decryptCredential,
  encryptCredential,
  type CredentialBinding,
  type EncryptedPayload,
} from '../../src/credentials/credential-cipher';
import { AppError } from '../../src/errors/app-error';

const key = randomBytes(32);
const binding: CredentialBinding = { orgId: randomUUID(), integrationType: 'shopify' };
const canary = `CANARY-${randomUUID()}`;
const config = { shopDomain: 'demo.myshopify.com', accessToken: canary, nested: { scopes: ['read_orders'] } };

/** The AppError code `fn` throws, or a description of what else happened. */
function thrownCode(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? error.code : `not an AppError: ${String(error)}`;
  }
  return 'did not throw';
}

const b64 = (value: string) => Buffer.from(value, 'base64');

describe('encryptCredential / decryptCredential', () => {
  test('round trips the config under the same key and binding', () => {
    const payload = encryptCredential(key, 1, binding, config);
    expect(payload.alg).toBe('aes-256-gcm');
    expect(payload.keyVersion).toBe(1);
    expect(decryptCredential(key, { ...binding }, payload)).toEqual(config);
  });

  test('the payload holds no plaintext', () => {
    const payload = encryptCredential(key, 1, binding, config);
    const serialized = JSON.stringify(payload);
    expect(serialized).not.toContain(canary);
    expect(serialized).not.toContain('demo.myshopify.com');
    expect(serialized).not.toContain('accessToken');
    const ciphertext = b64(payload.ciphertext);
    expect(ciphertext.includes(Buffer.from(canary, 'utf8'))).toBe(false);
    expect(ciphertext.includes(Buffer.from(JSON.stringify(config), 'utf8'))).toBe(false);
  });

  test('every encryption uses a fresh 12-byte IV and a 16-byte tag', () => {
    const payloads = Array.from({ length: 20 }, () => encryptCredential(key, 1, binding, config));
    for (const payload of payloads) {
      expect(b64(payload.iv)).toHaveLength(12);
      expect(b64(payload.tag)).toHaveLength(16);
    }
    expect(new Set(payloads.map((p) => p.iv)).size).toBe(payloads.length);
    expect(new Set(payloads.map((p) => p.ciphertext)).size).toBe(payloads.length);
  });

  test('a ciphertext bound to another org does not decrypt', () => {
    const payload = encryptCredential(key, 1, binding, config);
    expect(thrownCode(() => decryptCredential(key, { ...binding, orgId: randomUUID() }, payload))).toBe(
      'CREDENTIALS_UNREADABLE',
    );
  });

  test('a ciphertext bound to another integration type does not decrypt', () => {
    const payload = encryptCredential(key, 1, binding, config);
    expect(thrownCode(() => decryptCredential(key, { ...binding, integrationType: 'amazon' }, payload))).toBe(
      'CREDENTIALS_UNREADABLE',
    );
  });

  test('the key version is authenticated too', () => {
    const payload = encryptCredential(key, 1, binding, config);
    expect(thrownCode(() => decryptCredential(key, binding, { ...payload, keyVersion: 2 }))).toBe(
      'CREDENTIALS_UNREADABLE',
    );
  });

  test('a tag truncated to 12 bytes is refused', () => {
    const payload = encryptCredential(key, 1, binding, config);
    const truncated: EncryptedPayload = { ...payload, tag: b64(payload.tag).subarray(0, 12).toString('base64') };
    expect(b64(truncated.tag)).toHaveLength(12);
    expect(thrownCode(() => decryptCredential(key, binding, truncated))).toBe('CREDENTIALS_UNREADABLE');
  });

  test('a missing tag or a wrong-length IV is refused', () => {
    const payload = encryptCredential(key, 1, binding, config);
    expect(thrownCode(() => decryptCredential(key, binding, { ...payload, tag: '' }))).toBe('CREDENTIALS_UNREADABLE');
    const longIv = Buffer.concat([b64(payload.iv), Buffer.alloc(4)]).toString('base64');
    expect(thrownCode(() => decryptCredential(key, binding, { ...payload, iv: longIv }))).toBe(
      'CREDENTIALS_UNREADABLE',
    );
  });

  test('a flipped ciphertext bit fails authentication', () => {
    const payload = encryptCredential(key, 1, binding, config);
    const bytes = b64(payload.ciphertext);
    for (const index of [0, Math.floor(bytes.length / 2), bytes.length - 1]) {
      const flipped = Buffer.from(bytes);
      flipped[index] ^= 0x01;
      const tampered = { ...payload, ciphertext: flipped.toString('base64') };
      expect(thrownCode(() => decryptCredential(key, binding, tampered))).toBe('CREDENTIALS_UNREADABLE');
    }
  });

  test('a flipped tag bit fails authentication', () => {
    const payload = encryptCredential(key, 1, binding, config);
    const tag = b64(payload.tag);
    tag[15] ^= 0x80;
    expect(thrownCode(() => decryptCredential(key, binding, { ...payload, tag: tag.toString('base64') }))).toBe(
      'CREDENTIALS_UNREADABLE',
    );
  });

  test('a wrong key fails', () => {
    const payload = encryptCredential(key, 1, binding, config);
    expect(thrownCode(() => decryptCredential(randomBytes(32), binding, payload))).toBe('CREDENTIALS_UNREADABLE');
  });

  test('an unknown algorithm is refused', () => {
    const payload = encryptCredential(key, 1, binding, config);
    const other = { ...payload, alg: 'aes-128-gcm' } as unknown as EncryptedPayload;
    expect(thrownCode(() => decryptCredential(key, binding, other))).toBe('CREDENTIALS_UNREADABLE');
  });

  test('a key that is not 32 bytes is a programming error, not a silent success', () => {
    expect(() => encryptCredential(randomBytes(16), 1, binding, config)).toThrow();
    const payload = encryptCredential(key, 1, binding, config);
    expect(() => decryptCredential(randomBytes(31), binding, payload)).toThrow();
  });
});
