import { Migration } from '@mikro-orm/migrations';

export class Migration20261129224430_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "orgs" ("id" uuid not null, "name" text not null, "slug" text null, "policy_shadow_mode" boolean not null default false, "policy_version" int not null default 1, "created_at" timestamptz not null, constraint "orgs_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "orgs" add constraint "orgs_slug_unique" unique ("slug");`);

    this.addSql(
      `create table "integration_credentials" ("id" uuid not null, "org_id" uuid not null, "integration_type" text not null, "encrypted_config" jsonb not null, "key_version" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "integration_credentials_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "integration_credentials" add constraint "integration_credentials_org_id_integration_type_unique" unique ("org_id", "integration_type");`,
    );

    this.addSql(
      `create table "feature_flags" ("id" uuid not null, "org_id" uuid not null, "key" text not null, "enabled" boolean not null default false, "updated_at" timestamptz not null, constraint "feature_flags_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "feature_flags" add constraint "feature_flags_org_id_key_unique" unique ("org_id", "key");`);

    this.addSql(
      `create table "api_keys" ("id" uuid not null, "org_id" uuid not null, "role" text check ("role" in ('admin', 'expert', 'client', 'partner', 'agent')) not null, "name" text null, "prefix" text not null, "secret_hash" text not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, constraint "api_keys_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "api_keys" add constraint "api_keys_secret_hash_unique" unique ("secret_hash");`);
    this.addSql(`create index "api_keys_org_id_role_index" on "api_keys" ("org_id", "role");`);

    this.addSql(
      `create table "specialists" ("id" uuid not null, "org_id" uuid not null, "name" text not null, "description" text null, "system_prompt" text null, "created_at" timestamptz not null, constraint "specialists_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "specialists_org_id_created_at_index" on "specialists" ("org_id", "created_at");`);

    this.addSql(
      `create table "policy_rules" ("id" uuid not null, "org_id" uuid not null, "name" text not null, "position" int not null, "tool_pattern" text not null default '*', "action_pattern" text not null default '*', "conditions" jsonb not null default '[]', "roles" jsonb not null default '[]', "specialist_id" uuid null, "risk" text check ("risk" in ('low', 'medium', 'high')) not null, "decision" text check ("decision" in ('allow', 'observe', 'require_expert_approval', 'require_client_approval', 'block')) not null, "enabled" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "policy_rules_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "policy_rules_org_id_position_index" on "policy_rules" ("org_id", "position");`);

    this.addSql(
      `create table "agent_runs" ("id" uuid not null, "org_id" uuid not null, "specialist_id" uuid not null, "status" text check ("status" in ('queued', 'running', 'waiting_approval', 'completed', 'failed', 'cancelled')) not null default 'queued', "metadata" jsonb not null, "pending_approval_count" int not null default 0, "input_tokens" int not null default 0, "output_tokens" int not null default 0, "llm_cost_micros" int not null default 0, "tool_cost_cents" int not null default 0, "correlation_id" text not null, "driver" text not null default 'internal', "error_code" text null, "error_message" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "completed_at" timestamptz null, constraint "agent_runs_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "agent_runs_org_id_specialist_id_created_at_index" on "agent_runs" ("org_id", "specialist_id", "created_at");`);
    this.addSql(`create index "agent_runs_org_id_status_created_at_index" on "agent_runs" ("org_id", "status", "created_at");`);
    this.addSql(`create index "agent_runs_org_id_created_at_id_index" on "agent_runs" ("org_id", "created_at", "id");`);

    this.addSql(
      `create table "run_messages" ("id" uuid not null, "org_id" uuid not null, "run_id" uuid not null, "position" int not null, "role" text check ("role" in ('user', 'assistant')) not null, "content" jsonb not null, "created_at" timestamptz not null, constraint "run_messages_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "run_messages" add constraint "run_messages_run_id_position_unique" unique ("run_id", "position");`);

    this.addSql(
      `create table "policy_decisions" ("id" uuid not null, "org_id" uuid not null, "run_id" uuid not null, "tool_name" text not null, "action" text not null, "outcome" text check ("outcome" in ('allow', 'observe', 'require_expert_approval', 'require_client_approval', 'block')) not null, "shadow_outcome" text check ("shadow_outcome" in ('allow', 'observe', 'require_expert_approval', 'require_client_approval', 'block')) null, "risk" text check ("risk" in ('low', 'medium', 'high')) not null, "matched_rule_id" uuid null, "policy_version" int not null, "caller_role" text not null, "caller_key_id" uuid null, "reason" text not null, "created_at" timestamptz not null, constraint "policy_decisions_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "policy_decisions_org_id_run_id_created_at_index" on "policy_decisions" ("org_id", "run_id", "created_at");`);
    this.addSql(`create index "policy_decisions_org_id_created_at_id_index" on "policy_decisions" ("org_id", "created_at", "id");`);

    this.addSql(
      `create table "ledger_events" ("id" bigserial primary key, "sequence" bigint not null, "org_id" uuid not null, "run_id" uuid null, "resource_id" text null, "type" text not null, "actor_role" text null, "actor_key_id" uuid null, "metadata" jsonb not null, "prev_hash" text null, "hash" text not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "ledger_events_org_id_type_sequence_index" on "ledger_events" ("org_id", "type", "sequence");`);
    this.addSql(`create index "ledger_events_org_id_resource_id_sequence_index" on "ledger_events" ("org_id", "resource_id", "sequence");`);
    this.addSql(`create index "ledger_events_org_id_run_id_sequence_index" on "ledger_events" ("org_id", "run_id", "sequence");`);
    this.addSql(`alter table "ledger_events" add constraint "ledger_events_org_id_sequence_unique" unique ("org_id", "sequence");`);

    this.addSql(
      `create table "tool_calls" ("id" uuid not null, "org_id" uuid not null, "run_id" uuid not null, "tool_name" text not null, "action" text not null, "correlation_id" text not null, "tool_use_id" text null, "status" text check ("status" in ('blocked', 'waiting_approval', 'approved', 'running', 'succeeded', 'failed')) not null, "input_redacted" jsonb null, "output_redacted" jsonb null, "policy_decision_id" uuid null, "risk_level" text check ("risk_level" in ('low', 'medium', 'high')) null, "review_required" boolean not null default false, "error_code" text null, "error_text" text null, "vendor_status_code" int null, "retry_count" int not null default 0, "duration_ms" int null, "cost_cents" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "tool_calls_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "tool_calls_org_id_tool_name_created_at_index" on "tool_calls" ("org_id", "tool_name", "created_at");`);
    this.addSql(`create index "tool_calls_org_id_status_created_at_index" on "tool_calls" ("org_id", "status", "created_at");`);
    this.addSql(`create index "tool_calls_org_id_run_id_created_at_index" on "tool_calls" ("org_id", "run_id", "created_at");`);
    this.addSql(`create index "tool_calls_org_id_created_at_id_index" on "tool_calls" ("org_id", "created_at", "id");`);
    this.addSql(`alter table "tool_calls" add constraint "tool_calls_run_id_tool_use_id_unique" unique ("run_id", "tool_use_id");`);

    this.addSql(
      `create table "approval_requests" ("id" uuid not null, "org_id" uuid not null, "run_id" uuid not null, "tool_call_id" uuid not null, "kind" text check ("kind" in ('expert', 'client')) not null, "status" text check ("status" in ('pending', 'approved', 'rejected', 'expired')) not null default 'pending', "binding_hash" text not null, "requested_by" text null, "resolved_by" text null, "reason" text null, "expires_at" timestamptz not null, "resolved_at" timestamptz null, "created_at" timestamptz not null, constraint "approval_requests_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "approval_requests" add constraint "approval_requests_tool_call_id_unique" unique ("tool_call_id");`);
    this.addSql(`create index "approval_requests_status_expires_at_index" on "approval_requests" ("status", "expires_at");`);
    this.addSql(
      `create index "approval_requests_org_id_status_kind_created_at_index" on "approval_requests" ("org_id", "status", "kind", "created_at");`,
    );
    this.addSql(`create index "approval_requests_org_id_created_at_id_index" on "approval_requests" ("org_id", "created_at", "id");`);

    this.addSql(
      `create table "tool_definitions" ("id" uuid not null, "tool_name" text not null, "action" text not null, "vendor" text not null, "description" text not null, "default_risk" text check ("default_risk" in ('low', 'medium', 'high')) not null, "idempotent" boolean not null, "input_schema" jsonb not null, "cost_cents" int not null default 0, "timeout_ms" int null, "created_at" timestamptz not null, constraint "tool_definitions_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "tool_definitions" add constraint "tool_definitions_tool_name_action_unique" unique ("tool_name", "action");`);

    this.addSql(
      `create table "tool_permissions" ("id" uuid not null, "org_id" uuid not null, "tool_id" uuid not null, "enabled" boolean not null, "updated_at" timestamptz not null, constraint "tool_permissions_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "tool_permissions" add constraint "tool_permissions_org_id_tool_id_unique" unique ("org_id", "tool_id");`);

    this.addSql(
      `create table "tool_specialist_bindings" ("id" uuid not null, "org_id" uuid not null, "specialist_id" uuid not null, "tool_id" uuid not null, "created_at" timestamptz not null, constraint "tool_specialist_bindings_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "tool_specialist_bindings_org_id_specialist_id_index" on "tool_specialist_bindings" ("org_id", "specialist_id");`);
    this.addSql(
      `alter table "tool_specialist_bindings" add constraint "tool_specialist_bindings_specialist_id_tool_id_unique" unique ("specialist_id", "tool_id");`,
    );

    this.addSql(
      `alter table "integration_credentials" add constraint "integration_credentials_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "feature_flags" add constraint "feature_flags_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );

    this.addSql(`alter table "api_keys" add constraint "api_keys_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`);

    this.addSql(
      `alter table "specialists" add constraint "specialists_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "policy_rules" add constraint "policy_rules_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "policy_rules" add constraint "policy_rules_specialist_id_foreign" foreign key ("specialist_id") references "specialists" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "agent_runs" add constraint "agent_runs_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "agent_runs" add constraint "agent_runs_specialist_id_foreign" foreign key ("specialist_id") references "specialists" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "run_messages" add constraint "run_messages_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "run_messages" add constraint "run_messages_run_id_foreign" foreign key ("run_id") references "agent_runs" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "policy_decisions" add constraint "policy_decisions_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "policy_decisions" add constraint "policy_decisions_run_id_foreign" foreign key ("run_id") references "agent_runs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "policy_decisions" add constraint "policy_decisions_matched_rule_id_foreign" foreign key ("matched_rule_id") references "policy_rules" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "ledger_events" add constraint "ledger_events_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "ledger_events" add constraint "ledger_events_run_id_foreign" foreign key ("run_id") references "agent_runs" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "tool_calls" add constraint "tool_calls_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tool_calls" add constraint "tool_calls_run_id_foreign" foreign key ("run_id") references "agent_runs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tool_calls" add constraint "tool_calls_policy_decision_id_foreign" foreign key ("policy_decision_id") references "policy_decisions" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "approval_requests" add constraint "approval_requests_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "approval_requests" add constraint "approval_requests_run_id_foreign" foreign key ("run_id") references "agent_runs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "approval_requests" add constraint "approval_requests_tool_call_id_foreign" foreign key ("tool_call_id") references "tool_calls" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "tool_permissions" add constraint "tool_permissions_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tool_permissions" add constraint "tool_permissions_tool_id_foreign" foreign key ("tool_id") references "tool_definitions" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "tool_specialist_bindings" add constraint "tool_specialist_bindings_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tool_specialist_bindings" add constraint "tool_specialist_bindings_specialist_id_foreign" foreign key ("specialist_id") references "specialists" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tool_specialist_bindings" add constraint "tool_specialist_bindings_tool_id_foreign" foreign key ("tool_id") references "tool_definitions" ("id") on update cascade;`,
    );

    // Counters never negative, resolutions complete (declared with @Check on the entities).
    this.addSql(
      `alter table "agent_runs" add constraint "agent_runs_counters_check" check ("pending_approval_count" >= 0 and "input_tokens" >= 0 and "output_tokens" >= 0 and "llm_cost_micros" >= 0 and "tool_cost_cents" >= 0);`,
    );
    this.addSql(
      `alter table "tool_calls" add constraint "tool_calls_counters_check" check ("retry_count" >= 0 and ("duration_ms" is null or "duration_ms" >= 0) and "cost_cents" >= 0);`,
    );
    this.addSql(
      `alter table "approval_requests" add constraint "approval_requests_resolution_check" check (("status" = 'pending') = ("resolved_at" is null));`,
    );

    // The audit ledger is append-only in the database itself, whoever connects.
    this.addSql(`create function "toolgate_ledger_append_only"() returns trigger language plpgsql as $$
begin
  raise exception 'ledger_events is append-only: % refused', tg_op using errcode = 'TGL01';
end
$$;`);
    this.addSql(
      `create trigger "ledger_events_no_update_delete" before update or delete on "ledger_events" for each row execute function "toolgate_ledger_append_only"();`,
    );
    this.addSql(
      `create trigger "ledger_events_no_truncate" before truncate on "ledger_events" for each statement execute function "toolgate_ledger_append_only"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "ledger_events_no_truncate" on "ledger_events";`);
    this.addSql(`drop trigger if exists "ledger_events_no_update_delete" on "ledger_events";`);
    this.addSql(`drop function if exists "toolgate_ledger_append_only"();`);
    this.addSql(`alter table "integration_credentials" drop constraint "integration_credentials_org_id_foreign";`);

    this.addSql(`alter table "feature_flags" drop constraint "feature_flags_org_id_foreign";`);

    this.addSql(`alter table "api_keys" drop constraint "api_keys_org_id_foreign";`);

    this.addSql(`alter table "specialists" drop constraint "specialists_org_id_foreign";`);

    this.addSql(`alter table "policy_rules" drop constraint "policy_rules_org_id_foreign";`);

    this.addSql(`alter table "agent_runs" drop constraint "agent_runs_org_id_foreign";`);

    this.addSql(`alter table "run_messages" drop constraint "run_messages_org_id_foreign";`);

    this.addSql(`alter table "policy_decisions" drop constraint "policy_decisions_org_id_foreign";`);

    this.addSql(`alter table "ledger_events" drop constraint "ledger_events_org_id_foreign";`);

    this.addSql(`alter table "tool_calls" drop constraint "tool_calls_org_id_foreign";`);

    this.addSql(`alter table "approval_requests" drop constraint "approval_requests_org_id_foreign";`);

    this.addSql(`alter table "tool_permissions" drop constraint "tool_permissions_org_id_foreign";`);

    this.addSql(`alter table "tool_specialist_bindings" drop constraint "tool_specialist_bindings_org_id_foreign";`);

    this.addSql(`alter table "policy_rules" drop constraint "policy_rules_specialist_id_foreign";`);

    this.addSql(`alter table "agent_runs" drop constraint "agent_runs_specialist_id_foreign";`);

    this.addSql(`alter table "tool_specialist_bindings" drop constraint "tool_specialist_bindings_specialist_id_foreign";`);

    this.addSql(`alter table "policy_decisions" drop constraint "policy_decisions_matched_rule_id_foreign";`);

    this.addSql(`alter table "run_messages" drop constraint "run_messages_run_id_foreign";`);

    this.addSql(`alter table "policy_decisions" drop constraint "policy_decisions_run_id_foreign";`);

    this.addSql(`alter table "ledger_events" drop constraint "ledger_events_run_id_foreign";`);

    this.addSql(`alter table "tool_calls" drop constraint "tool_calls_run_id_foreign";`);

    this.addSql(`alter table "approval_requests" drop constraint "approval_requests_run_id_foreign";`);

    this.addSql(`alter table "tool_calls" drop constraint "tool_calls_policy_decision_id_foreign";`);

    this.addSql(`alter table "approval_requests" drop constraint "approval_requests_tool_call_id_foreign";`);

    this.addSql(`alter table "tool_permissions" drop constraint "tool_permissions_tool_id_foreign";`);

    this.addSql(`alter table "tool_specialist_bindings" drop constraint "tool_specialist_bindings_tool_id_foreign";`);

    this.addSql(`drop table if exists "orgs" cascade;`);

    this.addSql(`drop table if exists "integration_credentials" cascade;`);

    this.addSql(`drop table if exists "feature_flags" cascade;`);

    this.addSql(`drop table if exists "api_keys" cascade;`);

    this.addSql(`drop table if exists "specialists" cascade;`);

    this.addSql(`drop table if exists "policy_rules" cascade;`);

    this.addSql(`drop table if exists "agent_runs" cascade;`);

    this.addSql(`drop table if exists "run_messages" cascade;`);

    this.addSql(`drop table if exists "policy_decisions" cascade;`);

    this.addSql(`drop table if exists "ledger_events" cascade;`);

    this.addSql(`drop table if exists "tool_calls" cascade;`);

    this.addSql(`drop table if exists "approval_requests" cascade;`);

    this.addSql(`drop table if exists "tool_definitions" cascade;`);

    this.addSql(`drop table if exists "tool_permissions" cascade;`);

    this.addSql(`drop table if exists "tool_specialist_bindings" cascade;`);
  }
}
