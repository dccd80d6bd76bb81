import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { SqlTransaction } from '../db/raw-transaction';
import type { Logger } from '../logger';
import type { EventBus } from './event-bus';

/**
 * Tells the other nodes (and this one) that an org's ledger advanced — after the
 * transaction that appended to it committed, never inside it: appends note the newest
 * sequence per org on their transaction, and a transaction-commit hook publishes it.
 */
const pending = new WeakMap<object, Map<string, bigint>>();

/**
 * A savepoint (nested transaction) commits nothing by itself and MikroORM fires commit
 * hooks only for the outermost transaction: appends are noted on the root one. If the
 * savepoint rolls back, the notice is spurious but harmless (readers find nothing new).
 */
function rootTransaction(trx: object): object {
  let current = trx as { parentTransaction?: object };
  while (current.parentTransaction) current = current.parentTransaction as { parentTransaction?: object };
  return current;
}

export function noteLedgerAppend(em: SqlTransaction, orgId: string, sequence: bigint): void {
  const context = em.getTransactionContext() as object | undefined;
  if (!context) return;
  const trx = rootTransaction(context);
  const orgs = pending.get(trx) ?? new Map<string, bigint>();
  const known = orgs.get(orgId);
  if (known === undefined || sequence > known) orgs.set(orgId, sequence);
  pending.set(trx, orgs);
}

export function publishLedgerCommits(orm: MikroORM, bus: EventBus, logger: Logger): void {
  const subscriber: EventSubscriber = {
    afterTransactionCommit(args: TransactionEventArgs) {
      const trx = args.transaction as object | undefined;
      const orgs = trx ? pending.get(trx) : undefined;
      if (!trx || !orgs) return;
      pending.delete(trx);
      for (const [orgId, sequence] of orgs) {
        bus.publish('ledger', `${orgId}:${sequence}`).catch((error: unknown) => {
          // Subscribers catch up by sequence on the next notice; the event is in the ledger.
          logger.warn({ err: error, orgId }, 'could not publish a ledger notice');
        });
      }
    },
    afterTransactionRollback(args: TransactionEventArgs) {
      if (args.transaction) pending.delete(args.transaction as object);
    },
  };
  orm.em.getEventManager().registerSubscriber(subscriber);
}
