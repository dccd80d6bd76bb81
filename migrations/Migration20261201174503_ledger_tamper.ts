import { Migration } from '@mikro-orm/migrations';

/**
 * Ledger tamper evidence (docs/ledger.md):
 * - `hash_version`: events written so far keep their version 1 hash (verified as written,
 *   never re-hashed); new events are version 2, whose hash covers every column.
 * - `ledger_heads`: each org's newest sequence and hash, moved by a statement trigger on
 *   every ledger INSERT (same transaction), started here from each org's newest event. It
 *   only moves forward; DELETE and TRUNCATE are refused like the ledger's own.
 * - `toolgate_ledger_append_point(org, n)` replaces `toolgate_ledger_head(org)`: after the
 *   org's lock it reads the head (not the newest row, so an append after a deleted newest
 *   event still leaves a gap), allocates the n event ids and reads the clock, so the hash
 *   can cover the id and the timestamp to the microsecond. plpgsql and VOLATILE as before:
 *   the SELECT after the lock takes a fresh snapshot and sees an append committed while it
 *   waited.
 */
export class Migration20261201174503_ledger_tamper extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "ledger_heads" ("org_id" uuid not null, "sequence" bigint not null, "hash" text not null, constraint "ledger_heads_pkey" primary key ("org_id"));`,
    );
    this.addSql(`alter table "ledger_events" add column "hash_version" smallint not null default 1;`);
    this.addSql(`alter table "ledger_events" alter column "hash_version" drop default;`);
    this.addSql(`insert into "ledger_heads" ("org_id", "sequence", "hash")
  select distinct on (org_id) org_id, sequence, hash from ledger_events order by org_id, sequence desc;`);

    this.addSql(`create or replace function toolgate_ledger_advance_head() returns trigger
  language plpgsql
as $$
begin
  insert into ledger_heads as h (org_id, sequence, hash)
    select distinct on (a.org_id) a.org_id, a.sequence, a.hash from appended a order by a.org_id, a.sequence desc
  on conflict (org_id) do update set sequence = excluded.sequence, hash = excluded.hash;
  return null;
end
$$;`);
    this.addSql(`create trigger "ledger_events_advance_head" after insert on "ledger_events"
  referencing new table as appended for each statement execute function toolgate_ledger_advance_head();`);

    this.addSql(`create or replace function toolgate_ledger_head_forward_only() returns trigger
  language plpgsql
as $$
begin
  if tg_op = 'UPDATE' and new.org_id = old.org_id and new.sequence > old.sequence then
    return new;
  end if;
  raise exception 'ledger_heads only move forward: % refused', tg_op using errcode = 'TGL01';
end
$$;`);
    this.addSql(
      `create trigger "ledger_heads_forward_only" before update or delete on "ledger_heads" for each row execute function toolgate_ledger_head_forward_only();`,
    );
    this.addSql(
      `create trigger "ledger_heads_no_truncate" before truncate on "ledger_heads" for each statement execute function toolgate_ledger_head_forward_only();`,
    );

    this.addSql(`create or replace function toolgate_ledger_append_point(p_org_id uuid, p_count integer)
  returns table (hash text, sequence bigint, ids text[], created_at text)
  language plpgsql volatile
as $$
begin
  perform pg_advisory_xact_lock(hashtextextended(p_org_id::text, 7));
  return query
    select h.hash, coalesce(h.sequence, 0),
           array(select nextval('ledger_events_id_seq')::text from generate_series(1, p_count)),
           to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
      from (select 1) one left join ledger_heads h on h.org_id = p_org_id;
end
$$;`);
    this.addSql('drop function if exists toolgate_ledger_head(uuid);');
  }

  override async down(): Promise<void> {
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
    this.addSql('drop function if exists toolgate_ledger_append_point(uuid, integer);');
    this.addSql('drop trigger if exists "ledger_events_advance_head" on "ledger_events";');
    this.addSql('drop function if exists toolgate_ledger_advance_head();');
    this.addSql('drop table if exists "ledger_heads" cascade;');
    this.addSql('drop function if exists toolgate_ledger_head_forward_only();');
    this.addSql(`alter table "ledger_events" drop column "hash_version";`);
  }
}
