import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { IntegrationCredential } from './integration-credential.entity';
import { rewrapCredential } from './credential-envelope';
import type { MasterKeyring } from './keyring';
import { appendLedgerEvents, type LedgerEntry } from '../ledger/ledger.service';
import { WebhookEndpoint } from '../webhooks/webhook-endpoint.entity';
import { rewrapWebhookSecret } from '../webhooks/webhook-secret';

export interface RotationReport {
  rotated: number;
  /** Credentials per key version after the run; only the newest should remain. */
  byKeyVersion: Record<number, number>;
}

/**
 * Re-wraps every credential's data key (vendor credentials and webhook signing secrets) with the newest master key, in small committed
 * batches: safe while the server runs (each row changes atomically, readers see either
 * wrap, both versions are configured), and resumable (a rerun continues with what is
 * left). Rows being rotated by another process are skipped, not waited for.
 */
export async function rotateCredentials(
  orm: MikroORM,
  keyring: MasterKeyring,
  options: { batchSize?: number; onBatch?: (rotated: number) => void } = {},
): Promise<RotationReport> {
  const batchSize = options.batchSize ?? 100;
  let rotated = 0;
  for (;;) {
    const count = await orm.em.fork().transactional((tx) => rotateBatch(tx, keyring, batchSize));
    rotated += count;
    options.onBatch?.(rotated);
    if (count < batchSize) break;
  }
  return { rotated, byKeyVersion: await countByKeyVersion(orm.em.fork()) };
}

async function rotateBatch(tx: EntityManager, keyring: MasterKeyring, batchSize: number): Promise<number> {
  const target = keyring.current.version;
  const due = await tx.find(
    IntegrationCredential,
    { keyVersion: { $lt: target } },
    { orderBy: { id: 'asc' }, limit: batchSize, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
  );
  const events = new Map<string, LedgerEntry[]>();
  for (const credential of due) {
    const from = credential.keyVersion;
    credential.encryptedConfig = rewrapCredential(
      keyring,
      { orgId: credential.orgId, credentialId: credential.id, integrationType: credential.integrationType },
      credential.encryptedConfig,
    );
    credential.keyVersion = target;
    credential.updatedAt = new Date();
    const list = events.get(credential.orgId) ?? [];
    list.push({
      orgId: credential.orgId,
      type: 'credential.rotated',
      resourceId: credential.id,
      metadata: { integrationType: credential.integrationType, reason: 'master_key_rotation', fromKeyVersion: from, toKeyVersion: target },
    });
    events.set(credential.orgId, list);
  }
  // Webhook signing secrets are sealed the same way (src/webhooks/webhook-secret.ts).
  const endpoints =
    due.length < batchSize
      ? await tx.find(
          WebhookEndpoint,
          { keyVersion: { $lt: target } },
          { orderBy: { id: 'asc' }, limit: batchSize - due.length, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
        )
      : [];
  for (const endpoint of endpoints) {
    const from = endpoint.keyVersion;
    endpoint.encryptedSecret = rewrapWebhookSecret(keyring, endpoint.orgId, endpoint.id, endpoint.encryptedSecret);
    endpoint.keyVersion = target;
    const list = events.get(endpoint.orgId) ?? [];
    list.push({
      orgId: endpoint.orgId,
      type: 'credential.rotated',
      resourceId: endpoint.id,
      metadata: { integrationType: 'webhook_endpoint', reason: 'master_key_rotation', fromKeyVersion: from, toKeyVersion: target },
    });
    events.set(endpoint.orgId, list);
  }
  await tx.flush();
  for (const entries of events.values()) await appendLedgerEvents(tx, entries);
  return due.length + endpoints.length;
}

export async function countByKeyVersion(em: EntityManager): Promise<Record<number, number>> {
  const rows = await em.execute<{ key_version: number; count: string }[]>(
    `select key_version, count(*) as count
       from (select key_version from integration_credentials union all select key_version from webhook_endpoints) sealed
      group by key_version order by key_version`,
  );
  return Object.fromEntries(rows.map((r) => [r.key_version, Number(r.count)]));
}
