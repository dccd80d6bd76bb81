import type { EntityManager } from '@mikro-orm/postgresql';

/** The graphile-worker task that makes one attempt of one delivery (also named in the migration's trigger). */
export const WEBHOOK_DELIVER_TASK = 'webhook_deliver';

/**
 * The worker queue of an org's deliveries: graphile-worker runs one job of a queue at a
 * time, so an org's slow receivers hold one slot of the webhook pool, never all of them.
 */
export const webhookQueueName = (orgId: string) => `webhook-org:${orgId}`;

/** The job key of a delivery: one pending job per delivery, whoever asks how often. */
export const deliveryJobKey = (deliveryId: string) => `webhook:${deliveryId}`;

/**
 * (Re)schedules a delivery's job in the caller's transaction, as the trigger does for a new
 * one: keyed by the delivery (a pending job is moved to `runAt`, not doubled), queued per
 * org (one attempt at a time per org, so an endpoint's in order too). `runAt` null: now.
 * The webhook task runs in a worker pool of its own (src/jobs/worker.ts).
 */
export async function enqueueDelivery(tx: EntityManager, delivery: { id: string; orgId: string }, runAt: Date | null): Promise<void> {
  await tx.execute(
    `select graphile_worker.add_job(?, json_build_object('deliveryId', ?::text), queue_name := ?, job_key := ?, run_at := coalesce(?::timestamptz, now()))`,
    [WEBHOOK_DELIVER_TASK, delivery.id, webhookQueueName(delivery.orgId), deliveryJobKey(delivery.id), runAt?.toISOString() ?? null],
  );
}
