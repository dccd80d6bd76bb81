import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { LedgerEvent } from './ledger-event.entity';
import { findRun } from '../runs/run-query.service';
import { notFound } from '../errors/app-error';
import { createdWithin, paginate } from '../graphql/paging';
import { toLedgerEventType, type LedgerEventsArgs } from './ledger.types';

/** The org's ledger in sequence order. */
export async function listLedgerEvents(em: EntityManager, caller: Caller, args: LedgerEventsArgs) {
  const filter = args.filter ?? {};
  const orgId = caller.orgId;
  if (filter.runId) await findRun(em, caller, filter.runId);
  const where = {
    orgId,
    ...(filter.runId ? { runId: filter.runId } : {}),
    ...(filter.type ? { type: filter.type } : {}),
    ...(filter.resourceId ? { resourceId: filter.resourceId } : {}),
    ...createdWithin(filter.created),
  };
  // A resource id can name any kind of row; one that nothing in this org's ledger is
  // about is treated like any other unknown id, so another org's ids are never confirmed.
  if (filter.resourceId) {
    const known = await em.count(LedgerEvent, { orgId, resourceId: filter.resourceId });
    if (known === 0) throw notFound('Resource');
  }
  return paginate(em, LedgerEvent, where, args, 'sequence', toLedgerEventType);
}
