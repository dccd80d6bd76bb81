import { Migration } from '@mikro-orm/migrations';

/**
 * `toolgate_ledger_append(…)`: a ledger append in one round trip instead of two (issue 34,
 * "fewer round trips per call"). The append point (the org's lock, the head, the new ids,
 * the time, the racing tool use) and the INSERT used to be two statements because the hash
 * of each event is chained to the head, which only the database knows under the lock.
 *
 * Here the caller sends each event's canonical JSON (version 2, ledger-hash.ts) in five
 * pieces, cut where the four values only the database knows go: `created_at`, `id`,
 * `prev_hash` and `sequence` (the canonical form sorts its keys, so those four always fall
 * between the same neighbours). Under the lock the function splices them in, hashes with
 * sha256 over the UTF-8 text, chains, and inserts every event in one statement (the head's
 * statement trigger runs once). What is hashed is byte for byte what ledgerHash hashes, so
 * the verifier and every export keep working unchanged.
 *
 * A tool use already recorded by a racing request (visible once the lock is held: a fresh
 * snapshot, the function is VOLATILE) raises SQLSTATE TGL02 with the call's id as the
 * message, before anything is written: the statement's joined rows roll back with it, and
 * no unique check waits on the twin's outcome transaction while this one holds the lock.
 *
 * `toolgate_ledger_append_point` stays for nodes still running the previous release.
 */
export class Migration20261209090000_ledger_append extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function toolgate_ledger_append(
  p_org_id uuid, p_run_id uuid, p_tool_use_id text,
  p_types text[], p_run_ids uuid[], p_resource_ids text[], p_actor_roles text[], p_actor_key_ids uuid[], p_metadata jsonb[],
  p_parts text[])
  returns table (id text, sequence text, created_at text, prev_hash text, hash text)
  language plpgsql volatile
as $$
declare
  v_count integer := cardinality(p_types);
  v_recorded uuid;
  v_prev text;
  v_sequence bigint;
  v_at text;
  v_ids bigint[];
  v_sequences bigint[] := '{}';
  v_prevs text[] := '{}';
  v_hashes text[] := '{}';
  v_hash text;
  i integer;
begin
  if cardinality(p_parts) <> 5 * v_count then
    raise exception 'toolgate_ledger_append: % events need % parts, got %', v_count, 5 * v_count, cardinality(p_parts);
  end if;
  perform pg_advisory_xact_lock(hashtextextended(p_org_id::text, 7));
  if p_tool_use_id is not null then
    select c.id into v_recorded from tool_calls c where c.run_id = p_run_id and c.tool_use_id = p_tool_use_id;
    if v_recorded is not null then
      raise exception using errcode = 'TGL02', message = v_recorded::text;
    end if;
  end if;
  select h.hash, h.sequence into v_prev, v_sequence from ledger_heads h where h.org_id = p_org_id;
  v_sequence := coalesce(v_sequence, 0);
  v_at := to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
  v_ids := array(select nextval('ledger_events_id_seq') from generate_series(1, v_count));
  for i in 1 .. v_count loop
    v_sequence := v_sequence + 1;
    v_hash := encode(sha256(convert_to(
      p_parts[5 * i - 4] || to_json(v_at)::text || p_parts[5 * i - 3] || to_json(v_ids[i]::text)::text || p_parts[5 * i - 2]
        || coalesce(to_json(v_prev)::text, 'null') || p_parts[5 * i - 1] || to_json(v_sequence::text)::text || p_parts[5 * i],
      'UTF8')), 'hex');
    v_sequences := v_sequences || v_sequence;
    v_prevs := v_prevs || v_prev;
    v_hashes := v_hashes || v_hash;
    v_prev := v_hash;
  end loop;
  insert into ledger_events (id, org_id, sequence, hash_version, type, run_id, resource_id, actor_role, actor_key_id, metadata, created_at, prev_hash, hash)
    select e.id, p_org_id, e.sequence, 2, e.type, e.run_id, e.resource_id, e.actor_role, e.actor_key_id, e.metadata, v_at::timestamptz, e.prev_hash, e.hash
      from unnest(v_ids, v_sequences, p_types, p_run_ids, p_resource_ids, p_actor_roles, p_actor_key_ids, p_metadata, v_prevs, v_hashes)
        as e(id, sequence, type, run_id, resource_id, actor_role, actor_key_id, metadata, prev_hash, hash);
  return query
    select u.id::text, u.sequence::text, v_at, u.prev_hash, u.hash
      from unnest(v_ids, v_sequences, v_prevs, v_hashes) as u(id, sequence, prev_hash, hash);
end
$$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists toolgate_ledger_append(uuid, uuid, text, text[], uuid[], text[], text[], uuid[], jsonb[], text[]);');
  }
}
