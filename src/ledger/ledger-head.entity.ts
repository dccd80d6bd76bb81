import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * Each org's chain head: the sequence and hash of its newest event, moved by a trigger on
 * every ledger INSERT (same statement, same transaction), so it never disagrees with a
 * committed chain. Verification compares the chain's end with it: deleting the newest
 * events, or all of them, leaves the head pointing past the end. The database refuses to
 * move it backwards or delete it (see the migration).
 */
@Entity({ tableName: 'ledger_heads' })
export class LedgerHead {
  @PrimaryKey({ type: 'uuid' })
  orgId!: string;

  @Property({ type: 'bigint' })
  sequence!: string;

  @Property({ type: 'text' })
  hash!: string;
}
