import { openJson, sealJson, type SealedJson } from './sealed-json';

/**
 * Integration credentials are sealed with an AAD that binds the ciphertext to its org,
 * integration type and key version, so a ciphertext copied to another org or row does
 * not decrypt.
 */
export type EncryptedPayload = SealedJson;

export interface CredentialBinding {
  orgId: string;
  integrationType: string;
}

export function encryptCredential(
  key: Buffer,
  keyVersion: number,
  binding: CredentialBinding,
  config: Record<string, unknown>,
): EncryptedPayload {
  return sealJson(key, keyVersion, aad(binding, keyVersion), config);
}

export function decryptCredential(
  key: Buffer,
  binding: CredentialBinding,
  payload: EncryptedPayload,
): Record<string, unknown> {
  return openJson<Record<string, unknown>>(key, aad(binding, payload?.keyVersion), payload);
}

function aad(binding: CredentialBinding, keyVersion: number): string {
  return `toolgate/credential/v1|${binding.orgId}|${binding.integrationType}|${keyVersion}`;
}
