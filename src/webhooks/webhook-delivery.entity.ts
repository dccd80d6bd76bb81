import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { Org } from '../orgs/org.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { TIMESTAMPTZ } from '../db/columns';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-events';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event for one endpoint. Rows are inserted by the database trigger on ledger_events
 * (migration `…_webhooks`) in the transaction that appends the event, with the job that
 * sends it: one row per endpoint and event (unique), whatever crashes when. The payload is
 * built at the first attempt and kept, so every retry sends the same signed bytes.
 */
@Entity({ tableName: 'webhook_deliveries' })
@Unique({ properties: ['endpointId', 'ledgerEventId'] })
@Index({ properties: ['endpointId', 'createdAt'] })
export class WebhookDelivery {
  @PrimaryKey({ type: 'uuid', defaultRaw: 'gen_random_uuid()' })
  id!: string;

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @ManyToOne(() => WebhookEndpoint, { mapToPk: true, fieldName: 'endpoint_id' })
  endpointId!: string;

  /** The ledger event it reports; also the `webhook-id` header (the receiver's dedupe key). */
  @Property({ type: 'bigint' })
  ledgerEventId!: string;

  @Enum({ items: [...WEBHOOK_EVENT_TYPES], type: 'text' })
  eventType!: WebhookEventType;

  @Enum({ items: [...DELIVERY_STATUSES], type: 'text', default: 'pending' })
  status: Opt<DeliveryStatus> = 'pending';

  @Property({ type: 'integer', default: 0 })
  attempts: Opt<number> = 0;

  @Property({ type: 'jsonb', nullable: true })
  payload: Record<string, unknown> | null = null;

  @Property({ ...TIMESTAMPTZ, nullable: true })
  nextAttemptAt: Date | null = null;

  @Property({ type: 'integer', nullable: true })
  lastHttpStatus: number | null = null;

  @Property({ type: 'text', nullable: true })
  lastErrorCode: string | null = null;

  @Property({ ...TIMESTAMPTZ, defaultRaw: 'now()' })
  createdAt!: Opt<Date>;

  @Property({ ...TIMESTAMPTZ, nullable: true })
  deliveredAt: Date | null = null;
}
