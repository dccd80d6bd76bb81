import { Migration } from '@mikro-orm/migrations';

/**
 * Approval webhooks: endpoints per org (secret sealed), deliveries (one per endpoint and
 * ledger event) and their attempts. A row trigger on ledger_events writes the deliveries of
 * an approval or run event, and their graphile-worker jobs, in the statement that appends
 * the event: the state change, its event and what must be sent of it commit together, so
 * no crash loses or doubles a delivery, and an org without endpoints pays one index probe
 * for those few event types (never a statement of its own; the WHEN clause skips the rest).
 * The type mapping is WEBHOOK_OF_LEDGER_EVENT (src/webhooks/webhook-events.ts).
 */
export class Migration20261201202801_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_endpoints" ("id" uuid not null, "org_id" uuid not null, "url" text not null, "event_types" text[] not null, "encrypted_secret" jsonb not null, "key_version" int not null, "enabled" boolean not null default true, "disabled_reason" text null, "created_at" timestamptz not null, "deleted_at" timestamptz null, constraint "webhook_endpoints_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_endpoints_org_id_index" on "webhook_endpoints" ("org_id");`);

    this.addSql(
      `create table "webhook_deliveries" ("id" uuid not null default gen_random_uuid(), "org_id" uuid not null, "endpoint_id" uuid not null, "ledger_event_id" bigint not null, "event_type" text check ("event_type" in ('approval.requested', 'approval.resolved', 'approval.expired', 'run.completed', 'run.failed')) not null, "status" text check ("status" in ('pending', 'delivered', 'failed')) not null default 'pending', "attempts" int not null default 0, "payload" jsonb null, "next_attempt_at" timestamptz null, "last_http_status" int null, "last_error_code" text null, "created_at" timestamptz not null default now(), "delivered_at" timestamptz null, constraint "webhook_deliveries_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_deliveries_endpoint_id_created_at_index" on "webhook_deliveries" ("endpoint_id", "created_at");`);
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_ledger_event_id_unique" unique ("endpoint_id", "ledger_event_id");`,
    );

    this.addSql(
      `create table "webhook_attempts" ("id" uuid not null, "org_id" uuid not null, "delivery_id" uuid not null, "attempt" int not null, "outcome" text check ("outcome" in ('succeeded', 'failed')) not null, "http_status" int null, "error_code" text null, "duration_ms" int not null, "started_at" timestamptz not null, constraint "webhook_attempts_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_attempt_unique" unique ("delivery_id", "attempt");`);

    this.addSql(
      `alter table "webhook_endpoints" add constraint "webhook_endpoints_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "webhook_attempts" add constraint "webhook_attempts_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id") on update cascade;`,
    );

    // One job per delivery (job_key), one delivery at a time per endpoint (queue_name): a slow
    // or dead receiver holds one worker slot, not all of them.
    this.addSql(`create function toolgate_webhook_enqueue() returns trigger
  language plpgsql
as $$
declare
  webhook_type text := case new.type
    when 'tool_call.approval_requested' then 'approval.requested'
    when 'tool_call.approved' then 'approval.resolved'
    when 'tool_call.rejected' then 'approval.resolved'
    when 'tool_call.expired' then 'approval.expired'
    when 'run.completed' then 'run.completed'
    when 'run.failed' then 'run.failed'
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
      queue_name := 'webhook:' || delivery.endpoint_id, job_key := 'webhook:' || delivery.id);
  end loop;
  return null;
end
$$;`);
    this.addSql(`create trigger "ledger_events_webhooks" after insert on "ledger_events" for each row
  when (new.type in ('tool_call.approval_requested', 'tool_call.approved', 'tool_call.rejected', 'tool_call.expired', 'run.completed', 'run.failed'))
  execute function toolgate_webhook_enqueue();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists "ledger_events_webhooks" on "ledger_events";');
    this.addSql('drop function if exists toolgate_webhook_enqueue();');
    this.addSql(`drop table if exists "webhook_attempts" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);
  }
}
