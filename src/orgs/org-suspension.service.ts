import type { EntityManager } from '@mikro-orm/postgresql';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { isUuid } from '../db/ids';
import { notFound } from '../errors/app-error';
import { Org } from './org.entity';

/**
 * Suspends an org: from the commit on, every key of it is refused with ORG_SUSPENDED (HTTP,
 * websockets, MCP), the gateway runs no tool call for its runs and the runtime fails them
 * with ORG_SUSPENDED. `changed` is false when it was suspended already (nothing written).
 * The caller announces it (KeyAccess.withdrawn or publishWithdrawal) so open sockets close.
 */
export async function suspendOrg(em: EntityManager, orgId: string, reason: string | null): Promise<{ org: Org; changed: boolean }> {
  return setSuspended(em, orgId, true, reason);
}

/** Lifts a suspension: the org's keys (those not revoked or expired) work again. */
export async function resumeOrg(em: EntityManager, orgId: string): Promise<{ org: Org; changed: boolean }> {
  return setSuspended(em, orgId, false, null);
}

async function setSuspended(em: EntityManager, orgId: string, suspend: boolean, reason: string | null): Promise<{ org: Org; changed: boolean }> {
  if (!isUuid(orgId)) throw notFound('Org');
  return em.transactional(async (tx) => {
    const [row] = await tx.execute<{ id: string }[]>(
      suspend
        ? 'update orgs set suspended_at = now() where id = ? and suspended_at is null returning id'
        : 'update orgs set suspended_at = null where id = ? and suspended_at is not null returning id',
      [orgId],
    );
    if (row) {
      await appendLedgerEvent(tx, {
        orgId,
        type: suspend ? 'org.suspended' : 'org.resumed',
        resourceId: orgId,
        metadata: suspend ? { reason } : {},
      });
    }
    const org = await tx.findOne(Org, { id: orgId }, { refresh: true });
    if (!org) throw notFound('Org');
    return { org, changed: Boolean(row) };
  });
}
