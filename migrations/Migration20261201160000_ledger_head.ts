import { Migration } from '@mikro-orm/migrations';

/**
 * The ledger's append point in one round trip: the org's chain lock and its last link.
 * plpgsql and VOLATILE on purpose: the SELECT after the lock takes a fresh snapshot, so it
 * sees an append committed while this transaction waited for the lock (one statement
 * reading both would use a snapshot from before the wait and fork the chain).
 */
export class Migration20261201160000_ledger_head extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function toolgate_ledger_head(p_org_id uuid)
  returns table (hash text, sequence bigint)
  language plpgsql volatile
as $$
begin
  perform pg_advisory_xact_lock(hashtextextended(p_org_id::text, 7));
  return query
    select e.hash, e.sequence from ledger_events e where e.org_id = p_org_id order by e.sequence desc limit 1;
end
$$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists toolgate_ledger_head(uuid);');
  }
}
