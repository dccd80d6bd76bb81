import type { EntityManager } from '@mikro-orm/postgresql';
import { IntegrationCredential } from './integration-credential.entity';
import { openCredential, sealCredential } from './credential-envelope';
import type { MasterKeyring } from './keyring';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { AppError, badInput } from '../errors/app-error';
import { newId } from '../db/columns';
import type { Caller } from '../auth/caller';

const INTEGRATION_TYPE = /^[a-z][a-z0-9_]{1,39}$/;
const MAX_CONFIG_BYTES = 16 * 1024;

/**
 * Stores (or replaces) an org's credential for one integration. The config is encrypted
 * before it reaches the ORM; nothing returns it except `readCredential`, which only the
 * executor calls.
 */
export async function putIntegrationCredential(
  em: EntityManager,
  keyring: MasterKeyring,
  caller: Pick<Caller, 'orgId'> & Partial<Caller>,
  integrationType: string,
  config: Record<string, unknown>,
): Promise<IntegrationCredential> {
  if (!INTEGRATION_TYPE.test(integrationType)) {
    throw badInput('integrationType must be 2-40 lowercase letters, digits or "_"', { field: 'integrationType' });
  }
  if (!config || typeof config !== 'object' || Array.isArray(config) || Object.keys(config).length === 0) {
    throw badInput('config must be a non-empty JSON object', { field: 'config' });
  }
  if (Buffer.byteLength(JSON.stringify(config)) > MAX_CONFIG_BYTES) {
    throw badInput(`config must be at most ${MAX_CONFIG_BYTES} bytes`, { field: 'config' });
  }
  const binding = { orgId: caller.orgId, integrationType };
  return em.transactional(async (tx) => {
    let credential = await tx.findOne(IntegrationCredential, binding);
    const replaced = Boolean(credential);
    // A new data key on every put; the row id is part of the ciphertext's binding.
    const credentialId = credential?.id ?? newId();
    const encryptedConfig = sealCredential(keyring, { ...binding, credentialId }, config);
    if (!credential) {
      credential = tx.create(IntegrationCredential, { id: credentialId, ...binding, keyVersion: encryptedConfig.keyVersion, encryptedConfig });
    } else {
      credential.encryptedConfig = encryptedConfig;
      credential.keyVersion = encryptedConfig.keyVersion;
      credential.updatedAt = new Date();
    }
    await tx.flush();
    await appendLedgerEvent(tx, {
      orgId: caller.orgId,
      type: replaced ? 'credential.rotated' : 'credential.created',
      resourceId: credential.id,
      actor: caller.role ? { role: caller.role, keyId: caller.keyId ?? null, person: caller.person ?? null } : null,
      metadata: { integrationType, keyVersion: credential.keyVersion, replaced },
    });
    return credential;
  });
}

export async function listCredentials(em: EntityManager, orgId: string): Promise<IntegrationCredential[]> {
  return em.find(IntegrationCredential, { orgId }, { orderBy: { integrationType: 'asc' } });
}

/** The decrypted config, for the executor only. */
export async function readCredential(
  em: EntityManager,
  keyring: MasterKeyring,
  orgId: string,
  integrationType: string,
): Promise<Record<string, unknown>> {
  const credential = await em.findOne(IntegrationCredential, { orgId, integrationType });
  if (!credential) {
    throw new AppError('CREDENTIALS_NOT_FOUND', `No ${integrationType} credential is configured for this org`);
  }
  return openCredential(keyring, { orgId, credentialId: credential.id, integrationType }, credential.encryptedConfig);
}
