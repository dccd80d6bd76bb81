import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

/**
 * The Ed25519 keys of ledger checkpoints (node:crypto does the cryptography). The private
 * key signs (TOOLGATE_LEDGER_SIGNING_KEY); verifying needs only the public key, which
 * `openssl pkey -in key.pem -pubout` prints.
 */

/** PEM, or base64 of the DER: PKCS#8 for a private key, SPKI for a public one. */
function parseKey(raw: string, kind: 'private' | 'public'): KeyObject {
  const text = raw.trim().replace(/\\n/g, '\n');
  const pem = text.startsWith('-----BEGIN');
  if (!pem && !/^[A-Za-z0-9+/=\s]+$/.test(text)) throw new Error('neither PEM nor base64');
  const key =
    kind === 'private'
      ? createPrivateKey(pem ? text : { key: Buffer.from(text, 'base64'), format: 'der', type: 'pkcs8' })
      : createPublicKey(pem ? text : { key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`a ${key.asymmetricKeyType} key, not Ed25519`);
  return key;
}

/** The signing key; throws when `raw` is not an Ed25519 private key. */
export const parseSigningKey = (raw: string): KeyObject => parseKey(raw, 'private');

/** A verifying key: an Ed25519 public key (or a private one, whose public half is taken). */
export function parseVerifyingKey(raw: string): KeyObject {
  return raw.includes('PRIVATE KEY') ? createPublicKey(parseKey(raw, 'private')) : parseKey(raw, 'public');
}

/** `ed25519:` and the first 32 hex digits of SHA-256 over the public key's SPKI DER. */
export function keyIdOf(key: KeyObject): string {
  const spki = (key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' });
  return `ed25519:${createHash('sha256').update(spki).digest('hex').slice(0, 32)}`;
}
