import { Migration } from '@mikro-orm/migrations';

/**
 * `toolgate_ledger_append_point(org, n, run, tool_use_id)`: the append point that also says
 * whether the run's tool use was recorded by a racing request while this one waited for the
 * org's lock (`recorded_call`, else null).
 *
 * Why: a request that passed the replay check before its twin committed used to find out
 * only at its INSERT, by the unique constraint — and that check waits for a transaction
 * that is updating the conflicting row. The twin's outcome transaction updates the call's
 * row and then waits for the org's lock, which this request holds: a deadlock, with the
 * twin's outcome as a possible victim. A SELECT after the lock (plpgsql, VOLATILE: a fresh
 * snapshot that sees the twin's committed row) never waits on row locks, so the request
 * answers as a replay without inserting. The two-argument function stays for nodes still
 * running the previous release during a rolling deploy.
 */
export class Migration20261201203000_append_point_tool_use extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function toolgate_ledger_append_point(p_org_id uuid, p_count integer, p_run_id uuid, p_tool_use_id text)
  returns table (hash text, sequence bigint, ids text[], created_at text, recorded_call uuid)
  language plpgsql volatile
as $$
begin
  perform pg_advisory_xact_lock(hashtextextended(p_org_id::text, 7));
  return query
    select h.hash, coalesce(h.sequence, 0),
           array(select nextval('ledger_events_id_seq')::text from generate_series(1, p_count)),
           to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
           (select c.id from tool_calls c where p_tool_use_id is not null and c.run_id = p_run_id and c.tool_use_id = p_tool_use_id)
      from (select 1) one left join ledger_heads h on h.org_id = p_org_id;
end
$$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists toolgate_ledger_append_point(uuid, integer, uuid, text);');
  }
}
