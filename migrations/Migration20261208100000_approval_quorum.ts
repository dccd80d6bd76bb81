import { Migration } from '@mikro-orm/migrations';

/**
 * Quorum approvals and escalation ladders (issue 33, items 3 and 4). A rule may ask for N
 * distinct approvers and name a ladder of steps; an approval copies both when it opens (a
 * later rule change does not move the goalposts of a waiting call) and records its current
 * step and when that step ends. A vote that does not complete the quorum changes no status:
 * it is a row of `approval_votes`, unique per approval, bound params and voter (a person by
 * `people.id`, else the key), so the same person counts once for the same params; an edit
 * binds new params, and earlier votes stay as history without counting.
 */
export class Migration20261208100000_approval_quorum extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "policy_rules" add column "quorum" int not null default 1, add column "escalation" jsonb not null default '[]', add column "expire_after_seconds" int null;`,
    );
    this.addSql(
      `alter table "approval_requests" add column "quorum" int not null default 1, add column "escalation" jsonb not null default '[]', add column "step" int not null default 0, add column "step_ends_at" timestamptz null;`,
    );
    this.addSql('create index "approval_requests_status_step_ends_at_index" on "approval_requests" ("status", "step_ends_at");');
    this.addSql(`create table "approval_votes" (
      "id" uuid not null,
      "org_id" uuid not null,
      "approval_id" uuid not null,
      "key_id" uuid null,
      "person_id" uuid null,
      "voter" text not null,
      "decision" text check ("decision" in ('approve', 'reject')) not null,
      "binding_hash" text not null,
      "created_at" timestamptz not null,
      constraint "approval_votes_pkey" primary key ("id"),
      constraint "approval_votes_once" unique ("approval_id", "binding_hash", "voter"),
      constraint "approval_votes_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade,
      constraint "approval_votes_approval_id_foreign" foreign key ("approval_id") references "approval_requests" ("id") on update cascade on delete cascade
    );`);
    this.addSql(WEBHOOK_ENQUEUE("when 'approval.escalated' then 'approval.escalated'"));
    this.addSql('drop trigger "ledger_events_webhooks" on "ledger_events";');
    this.addSql(WEBHOOK_TRIGGER(", 'approval.escalated'"));
    this.addSql(DELIVERY_TYPES(['approval.escalated']));
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger "ledger_events_webhooks" on "ledger_events";');
    this.addSql(WEBHOOK_TRIGGER(''));
    this.addSql(DELIVERY_TYPES([]));
    this.addSql(WEBHOOK_ENQUEUE(''));
    this.addSql('drop table if exists "approval_votes";');
    this.addSql('drop index if exists "approval_requests_status_step_ends_at_index";');
    this.addSql('alter table "approval_requests" drop column "quorum", drop column "escalation", drop column "step", drop column "step_ends_at";');
    this.addSql('alter table "policy_rules" drop column "quorum", drop column "escalation", drop column "expire_after_seconds";');
  }
}

/** The delivery types of `…_upstream_pins` (the entity's enum check), with `approval.escalated` added by up(). */
const DELIVERY_TYPES = (extra: string[]) =>
  `alter table "webhook_deliveries" drop constraint "webhook_deliveries_event_type_check", add constraint "webhook_deliveries_event_type_check" check ("event_type" in (${['approval.requested', 'approval.resolved', 'approval.expired', ...extra, 'run.completed', 'run.failed', 'mcp_tool.drifted'].map((t) => `'${t}'`).join(', ')}));`;

/** The trigger of `…_upstream_pins`, with `approval.escalated` added by up(). */
const WEBHOOK_TRIGGER = (extra: string) => `create trigger "ledger_events_webhooks" after insert on "ledger_events" for each row
  when (new.type in ('tool_call.approval_requested', 'tool_call.approved', 'tool_call.rejected', 'tool_call.expired', 'run.completed', 'run.failed', 'mcp_tool.drifted'${extra}))
  execute function toolgate_webhook_enqueue();`;

/** The function of `…_webhook_org_queue`, with `approval.escalated` added by up(). */
const WEBHOOK_ENQUEUE = (extra: string) => `create or replace function toolgate_webhook_enqueue() returns trigger
  language plpgsql
as $$
declare
  webhook_type text := case new.type
    when 'tool_call.approval_requested' then 'approval.requested'
    when 'tool_call.approved' then 'approval.resolved'
    when 'tool_call.rejected' then 'approval.resolved'
    when 'tool_call.expired' then 'approval.expired'
    ${extra}
    when 'run.completed' then 'run.completed'
    when 'run.failed' then 'run.failed'
    when 'mcp_tool.drifted' then 'mcp_tool.drifted'
  end;
  delivery record;
begin
  for delivery in
    insert into webhook_deliveries (org_id, endpoint_id, ledger_event_id, event_type, next_attempt_at)
      select e.org_id, e.id, new.id, webhook_type, now() from webhook_endpoints e
       where e.org_id = new.org_id and e.enabled and e.deleted_at is null and webhook_type = any (e.event_types)
    on conflict do nothing
    returning id, endpoint_id
  loop
    perform graphile_worker.add_job('webhook_deliver', json_build_object('deliveryId', delivery.id),
      queue_name := 'webhook-org:' || new.org_id, job_key := 'webhook:' || delivery.id);
  end loop;
  return null;
end
$$;`;
