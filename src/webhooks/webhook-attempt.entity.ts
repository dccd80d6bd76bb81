import { Entity, Enum, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Org } from '../orgs/org.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { newId, TIMESTAMPTZ } from '../db/columns';

export const ATTEMPT_OUTCOMES = ['succeeded', 'failed'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** One HTTP attempt of a delivery: what the receiver answered, or why there was no answer. */
@Entity({ tableName: 'webhook_attempts' })
@Unique({ properties: ['deliveryId', 'attempt'] })
export class WebhookAttempt {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @ManyToOne(() => WebhookDelivery, { mapToPk: true, fieldName: 'delivery_id' })
  deliveryId!: string;

  /** 1, 2, … */
  @Property({ type: 'integer' })
  attempt!: number;

  @Enum({ items: [...ATTEMPT_OUTCOMES], type: 'text' })
  outcome!: AttemptOutcome;

  @Property({ type: 'integer', nullable: true })
  httpStatus: number | null = null;

  /** `http_error`, `timeout`, `unreachable` (refused by the egress policy, or no connection), `gone` (410), `secret_unreadable`; `network_error` on attempts recorded before the egress policy. */
  @Property({ type: 'text', nullable: true })
  errorCode: string | null = null;

  @Property({ type: 'integer' })
  durationMs!: number;

  @Property({ ...TIMESTAMPTZ })
  startedAt!: Date;
}
