import type DataLoader from 'dataloader';
import { LedgerEvent } from './ledger-event.entity';
import { NESTED_LIST_CAP, firstOfEach, groupLoader, type OrgRows } from '../graphql/loaders';

declare module '../graphql/context' {
  interface RequestLoaders {
    ledgerEventsByRun: DataLoader<string, LedgerEvent[]>;
    ledgerEventsByResource: DataLoader<string, LedgerEvent[]>;
  }
}

/** A run's ledger events, and a resource's (a tool call's), the first NESTED_LIST_CAP in order. */
export const ledgerEventLoaders = (rows: OrgRows) => ({
  ledgerEventsByRun: groupLoader(
    rows(LedgerEvent, firstOfEach('ledger_events', 'run_id', 'uuid', 'sequence asc', NESTED_LIST_CAP)),
    (row) => row.runId ?? '',
  ),
  ledgerEventsByResource: groupLoader(
    rows(LedgerEvent, firstOfEach('ledger_events', 'resource_id', 'text', 'sequence asc', NESTED_LIST_CAP)),
    (row) => row.resourceId ?? '',
  ),
});
