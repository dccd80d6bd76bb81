import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { takeLedgerAppends } from '../ledger/ledger-appends';
import type { Logger } from '../support/logger';
import type { EventBus } from './event-bus';

/**
 * Tells the other nodes (and this one) that an org's ledger advanced — after the
 * transaction that appended to it committed, never inside it: appends note the newest
 * sequence per org on their transaction (src/ledger/ledger-appends.ts), and this
 * transaction-commit hook publishes it.
 */
export function publishLedgerCommits(orm: MikroORM, bus: EventBus, logger: Logger): void {
  const subscriber: EventSubscriber = {
    afterTransactionCommit(args: TransactionEventArgs) {
      const orgs = args.transaction ? takeLedgerAppends(args.transaction as object) : undefined;
      if (!orgs) return;
      for (const [orgId, sequence] of orgs) {
        bus.publish('ledger', `${orgId}:${sequence}`).catch((error: unknown) => {
          // Subscribers catch up by sequence on the next notice; the event is in the ledger.
          logger.warn({ err: error, orgId }, 'could not publish a ledger notice');
        });
      }
    },
    afterTransactionRollback(args: TransactionEventArgs) {
      if (args.transaction) takeLedgerAppends(args.transaction as object);
    },
  };
  orm.em.getEventManager().registerSubscriber(subscriber);
}
