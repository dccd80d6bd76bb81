import { randomBytes } from 'node:crypto';
import { openBytes, sealBytes, type SealedBytes } from './sealed-json';
import type { MasterKeyring } from './keyring';
import { AppError } from '../errors/app-error';

/**
 * Envelope encryption of an integration credential: the config is sealed with a data
 * key of its own, and the data key is wrapped by a versioned master key. Both seals carry
 * AAD binding the org, the credential row and the integration type (the wrap also the
 * key version), so a ciphertext copied to another org or row does not open. Rotation
 * re-wraps the data key only.
 */
export interface CredentialEnvelope {
  format: 'envelope-v1';
  keyVersion: number;
  wrappedKey: SealedBytes;
  config: SealedBytes;
}

export interface CredentialIdentity {
  orgId: string;
  credentialId: string;
  integrationType: string;
}

const configAad = (id: CredentialIdentity) => `toolgate/credential-config/v1|${id.orgId}|${id.credentialId}|${id.integrationType}`;
const wrapAad = (id: CredentialIdentity, version: number) =>
  `toolgate/credential-key/v1|${id.orgId}|${id.credentialId}|${id.integrationType}|${version}`;

export function sealCredential(keyring: MasterKeyring, id: CredentialIdentity, config: Record<string, unknown>): CredentialEnvelope {
  const dataKey = randomBytes(32);
  try {
    return {
      format: 'envelope-v1',
      keyVersion: keyring.current.version,
      wrappedKey: sealBytes(keyring.current.key, wrapAad(id, keyring.current.version), dataKey),
      config: sealBytes(dataKey, configAad(id), Buffer.from(JSON.stringify(config), 'utf8')),
    };
  } finally {
    dataKey.fill(0);
  }
}

export function openCredential(keyring: MasterKeyring, id: CredentialIdentity, envelope: CredentialEnvelope): Record<string, unknown> {
  if (envelope?.format !== 'envelope-v1') throw unreadable();
  const dataKey = unwrap(keyring, id, envelope);
  try {
    const value: unknown = JSON.parse(openBytes(dataKey, configAad(id), envelope.config).toString('utf8'));
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw unreadable();
    return value as Record<string, unknown>;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw unreadable();
  } finally {
    dataKey.fill(0);
  }
}

/** The same envelope with its data key wrapped by the newest master key; the config is untouched. */
export function rewrapCredential(keyring: MasterKeyring, id: CredentialIdentity, envelope: CredentialEnvelope): CredentialEnvelope {
  const dataKey = unwrap(keyring, id, envelope);
  try {
    return {
      ...envelope,
      keyVersion: keyring.current.version,
      wrappedKey: sealBytes(keyring.current.key, wrapAad(id, keyring.current.version), dataKey),
    };
  } finally {
    dataKey.fill(0);
  }
}

function unwrap(keyring: MasterKeyring, id: CredentialIdentity, envelope: CredentialEnvelope): Buffer {
  const dataKey = openBytes(keyring.key(envelope.keyVersion), wrapAad(id, envelope.keyVersion), envelope.wrappedKey);
  if (dataKey.length !== 32) throw unreadable();
  return dataKey;
}

function unreadable(): AppError {
  return new AppError('CREDENTIALS_UNREADABLE', 'The stored credential cannot be decrypted with the configured keys');
}
