import { Migration } from '@mikro-orm/migrations';
import { pinHash } from '../src/upstream/upstream-pin';

/**
 * Imported upstream MCP tools keep their title and, once an admin enabled them, the text
 * enabled (pinned) and its hash. Tools enabled before this migration are pinned as they are
 * now: that is the text their admin last let through. A re-import that finds other text
 * upstream appends `mcp_tool.drifted`, which becomes the webhook of that name.
 */
export class Migration20261206130000_upstream_pins extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'alter table "tool_definitions" add column "upstream_title" text null, add column "pinned" jsonb null, add column "pinned_hash" text null, add column "pinned_at" timestamptz null;',
    );
    const enabled = (await this.execute(
      `select d.id, d.description, d.input_schema from tool_definitions d
         join tool_permissions p on p.tool_id = d.id and p.org_id = d.org_id and p.enabled
        where d.upstream_server_id is not null and d.removed_at is null`,
    )) as { id: string; description: string; input_schema: Record<string, unknown> }[];
    for (const row of enabled) {
      const text = { title: null, description: row.description, inputSchema: row.input_schema };
      const json = JSON.stringify(text).replaceAll("'", "''");
      this.addSql(
        `update "tool_definitions" set "pinned" = '${json}'::jsonb, "pinned_hash" = '${pinHash(text)}', "pinned_at" = now() where "id" = '${row.id}';`,
      );
    }
    this.addSql(deliveryTypes(['mcp_tool.drifted']));
    this.addSql(webhookEnqueue(DRIFTED));
    this.addSql('drop trigger "ledger_events_webhooks" on "ledger_events";');
    this.addSql(webhookTrigger(DRIFTED));
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "webhook_deliveries" where "event_type" = 'mcp_tool.drifted';`);
    this.addSql(deliveryTypes([]));
    this.addSql(webhookEnqueue(''));
    this.addSql('drop trigger "ledger_events_webhooks" on "ledger_events";');
    this.addSql(webhookTrigger(''));
    this.addSql(
      'alter table "tool_definitions" drop column "upstream_title", drop column "pinned", drop column "pinned_hash", drop column "pinned_at";',
    );
  }
}

const deliveryTypes = (extra: string[]) =>
  `alter table "webhook_deliveries" drop constraint "webhook_deliveries_event_type_check", add constraint "webhook_deliveries_event_type_check" check ("event_type" in (${['approval.requested', 'approval.resolved', 'approval.expired', 'run.completed', 'run.failed', ...extra].map((t) => `'${t}'`).join(', ')}));`;

const DRIFTED = "\n    when 'mcp_tool.drifted' then 'mcp_tool.drifted'";

/** toolgate_webhook_enqueue of the migration `…_webhooks`, with `extra` cases. */
const webhookEnqueue = (extra: string) => `create or replace function toolgate_webhook_enqueue() returns trigger
  language plpgsql
as $$
declare
  webhook_type text := case new.type
    when 'tool_call.approval_requested' then 'approval.requested'
    when 'tool_call.approved' then 'approval.resolved'
    when 'tool_call.rejected' then 'approval.resolved'
    when 'tool_call.expired' then 'approval.expired'
    when 'run.completed' then 'run.completed'
    when 'run.failed' then 'run.failed'${extra}
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
$$;`;

const webhookTrigger = (extra: string) => `create trigger "ledger_events_webhooks" after insert on "ledger_events" for each row
  when (new.type in ('tool_call.approval_requested', 'tool_call.approved', 'tool_call.rejected', 'tool_call.expired', 'run.completed', 'run.failed'${extra ? ", 'mcp_tool.drifted'" : ''}))
  execute function toolgate_webhook_enqueue();`;
