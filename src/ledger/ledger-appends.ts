import type { SqlTransaction } from '../db/raw-transaction';

/**
 * The newest sequence each org's ledger reached in a transaction not yet committed. The
 * ledger only records it here; whoever announces appends (src/realtime/ledger-notifier.ts)
 * takes it when the transaction commits, so the ledger knows nothing of who listens.
 */
const appended = new WeakMap<object, Map<string, bigint>>();

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

/** Notes that `orgId`'s ledger reached `sequence` in the transaction `em` runs in (none: nothing to note). */
export function noteLedgerAppend(em: SqlTransaction, orgId: string, sequence: bigint): void {
  const context = em.getTransactionContext() as object | undefined;
  if (!context) return;
  const trx = rootTransaction(context);
  const orgs = appended.get(trx) ?? new Map<string, bigint>();
  const known = orgs.get(orgId);
  if (known === undefined || sequence > known) orgs.set(orgId, sequence);
  appended.set(trx, orgs);
}

/** The newest sequence per org the transaction appended, forgotten once taken (undefined: it appended nothing). */
export function takeLedgerAppends(trx: object): Map<string, bigint> | undefined {
  const orgs = appended.get(trx);
  appended.delete(trx);
  return orgs;
}
