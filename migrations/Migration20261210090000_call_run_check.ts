import { Migration } from '@mikro-orm/migrations';

/**
 * `toolgate_call_run_check(…)`: the gateway's run read folded into the decision's statement
 * (issue 34, "the floor as the baseline"). A node decides a call on the run and org as it
 * last read them (gateway/run-cache.ts) and sends this check inside the decision's one
 * statement, ahead of the ledger append that depends on its answer: the run is still the
 * caller's org's and active, its owner the same, and the org not suspended and still at the
 * configuration and policy versions the decision used. Anything else raises SQLSTATE TGL03
 * before a row is written — the whole statement rolls back — and the node decides again on
 * a fresh read.
 *
 * The run's driver, specialist and manifest are not checked: they are set when the run is
 * created and no statement changes them.
 *
 * It answers the org's id: the append takes it from here, so it cannot run before the check.
 * A plain function, VOLATILE: it reads with a fresh snapshot, what was committed when the
 * statement reached it, which is never older than the separate read it replaces.
 */
export class Migration20261210090000_call_run_check extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function toolgate_call_run_check(
  p_run_id uuid, p_org_id uuid, p_owner_key_id uuid, p_config_version int, p_policy_version int, p_shadow_mode boolean)
  returns uuid
  language plpgsql volatile
as $$
begin
  perform 1
     from agent_runs r join orgs o on o.id = r.org_id
    where r.id = p_run_id and r.org_id = p_org_id
      and r.status in ('running', 'waiting_approval')
      and r.owner_key_id is not distinct from p_owner_key_id
      and o.suspended_at is null
      and o.config_version = p_config_version
      and o.policy_version = p_policy_version
      and o.policy_shadow_mode = p_shadow_mode;
  if not found then
    raise exception using errcode = 'TGL03', message = p_run_id::text;
  end if;
  return p_org_id;
end
$$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists toolgate_call_run_check(uuid, uuid, uuid, int, int, boolean);');
  }
}
