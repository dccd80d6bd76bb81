import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppError } from '../errors/app-error';

/**
 * AES-256-GCM for integration credentials. The additional authenticated data binds a
 * ciphertext to its org, integration type and key version, so a ciphertext copied to
 * another org or row does not decrypt.
 */
export interface EncryptedPayload {
  alg: 'aes-256-gcm';
  keyVersion: number;
  iv: string;
  tag: string;
  ciphertext: string;
}

export interface CredentialBinding {
  orgId: string;
  integrationType: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function encryptCredential(
  key: Buffer,
  keyVersion: number,
  binding: CredentialBinding,
  config: Record<string, unknown>,
): EncryptedPayload {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(binding, keyVersion));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(config), 'utf8'), cipher.final()]);
  return {
    alg: 'aes-256-gcm',
    keyVersion,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

export function decryptCredential(
  key: Buffer,
  binding: CredentialBinding,
  payload: EncryptedPayload,
): Record<string, unknown> {
  assertKey(key);
  const iv = Buffer.from(payload.iv ?? '', 'base64');
  const tag = Buffer.from(payload.tag ?? '', 'base64');
  // A shortened tag weakens GCM's authentication; refuse anything but the full 16 bytes.
  if (payload.alg !== 'aes-256-gcm' || iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw unreadable();
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(binding, payload.keyVersion));
    decipher.setAuthTag(tag);
    const plaintext = Buffer.concat([decipher.update(Buffer.from(payload.ciphertext, 'base64')), decipher.final()]);
    return JSON.parse(plaintext.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw unreadable();
  }
}

function aad(binding: CredentialBinding, keyVersion: number): Buffer {
  return Buffer.from(`toolgate/credential/v1|${binding.orgId}|${binding.integrationType}|${keyVersion}`, 'utf8');
}

function assertKey(key: Buffer): void {
  if (key.length !== 32) throw new Error('credential key must be 32 bytes');
}

function unreadable(): AppError {
  return new AppError('CREDENTIALS_UNREADABLE', 'The stored credential cannot be decrypted with the configured key');
}
