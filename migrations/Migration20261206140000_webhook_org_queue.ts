import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook jobs queued per org instead of per endpoint (issue 29, item 3): graphile-worker
 * runs one job of a queue at a time, so an org's deliveries take one slot of the webhook
 * worker pool however many of its receivers are slow, and other orgs' deliveries are not
 * held behind them. An endpoint's deliveries stay in order (a subset of the org's). Jobs
 * already queued per endpoint run as they were. The function is the one of `…_upstream_pins`
 * (with `mcp_tool.drifted`), only the queue name changes.
 */
export class Migration20261206140000_webhook_org_queue extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function toolgate_webhook_enqueue() returns trigger
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
$$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`create or replace function toolgate_webhook_enqueue() returns trigger
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
      queue_name := 'webhook:' || delivery.endpoint_id, job_key := 'webhook:' || delivery.id);
  end loop;
  return null;
end
$$;`);
  }
}
