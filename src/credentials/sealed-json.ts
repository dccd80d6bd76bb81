import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppError } from '../errors/app-error';

/**
 * AES-256-GCM with a purpose-bound AAD string: a random 96-bit nonce, the full 16-byte
 * tag enforced on open. A sealed value opens only with the same key and AAD, so it
 * cannot be moved to another row, org or purpose.
 */
export interface SealedBytes {
  iv: string;
  tag: string;
  ciphertext: string;
}

export interface SealedJson extends SealedBytes {
  alg: 'aes-256-gcm';
  keyVersion: number;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function sealBytes(key: Buffer, aad: string, plaintext: Buffer): SealedBytes {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64') };
}

/** Any mismatch (key, AAD, tag, truncation, tampering) is CREDENTIALS_UNREADABLE. */
export function openBytes(key: Buffer, aad: string, sealed: SealedBytes): Buffer {
  assertKey(key);
  const iv = Buffer.from(sealed?.iv ?? '', 'base64');
  const tag = Buffer.from(sealed?.tag ?? '', 'base64');
  // A shortened tag weakens GCM's authentication; refuse anything but the full 16 bytes.
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES || typeof sealed?.ciphertext !== 'string') throw unreadable();
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
  } catch {
    throw unreadable();
  }
}

export function sealJson(key: Buffer, keyVersion: number, aad: string, value: unknown): SealedJson {
  return { alg: 'aes-256-gcm', keyVersion, ...sealBytes(key, aad, Buffer.from(JSON.stringify(value), 'utf8')) };
}

export function openJson<T = unknown>(key: Buffer, aad: string, sealed: SealedJson): T {
  if (sealed?.alg !== 'aes-256-gcm') throw unreadable();
  const plaintext = openBytes(key, aad, sealed);
  try {
    return JSON.parse(plaintext.toString('utf8')) as T;
  } catch {
    throw unreadable();
  }
}

function assertKey(key: Buffer): void {
  if (key.length !== 32) throw new Error('encryption key must be 32 bytes');
}

function unreadable(): AppError {
  return new AppError('CREDENTIALS_UNREADABLE', 'The stored secret cannot be decrypted with the configured key');
}
