import type { EntityManager } from '@mikro-orm/postgresql';
import { ConfigError } from '../config';
import type { MasterKeyring } from './keyring';
import { openCredential, type CredentialEnvelope } from './credential-envelope';

/**
 * At start: the master keys can open the stored credentials — one credential of each key
 * version they were sealed with. A wrong or missing key would otherwise be found at the
 * first vendor call, as CREDENTIALS_UNREADABLE with the sentence for a missing integration,
 * with the server reporting ready all along.
 */
export async function assertKeyringOpensCredentials(em: EntityManager, keyring: MasterKeyring): Promise<void> {
  const rows = await em.execute<
    { id: string; org_id: string; integration_type: string; key_version: number; encrypted_config: CredentialEnvelope }[]
  >(
    `select distinct on (key_version) id, org_id, integration_type, key_version, encrypted_config
       from integration_credentials order by key_version, updated_at desc`,
  );
  for (const row of rows) {
    try {
      openCredential(keyring, { orgId: row.org_id, credentialId: row.id, integrationType: row.integration_type }, row.encrypted_config);
    } catch {
      throw new ConfigError(
        `the master key(s) cannot open the stored credentials sealed with key version ${row.key_version} ` +
          `(e.g. a ${row.integration_type} credential): set MASTER_ENCRYPTION_KEY(S) to include the key they were sealed with`,
      );
    }
  }
}
