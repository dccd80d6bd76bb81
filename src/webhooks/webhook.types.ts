import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { connectionType } from '../graphql/pagination';
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDelivery } from './webhook-delivery.entity';
import { ATTEMPT_OUTCOMES, type AttemptOutcome, type WebhookAttempt } from './webhook-attempt.entity';
import type { WebhookEndpoint } from './webhook-endpoint.entity';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-events';
import { graphqlEnum } from '../graphql/enums';

/** GraphQL enum names cannot hold a dot: `approval_requested` is the event type `approval.requested`. */
export const WebhookEventTypeEnum = Object.fromEntries(WEBHOOK_EVENT_TYPES.map((t) => [t.replace('.', '_'), t])) as Record<string, WebhookEventType>;
registerEnumType(WebhookEventTypeEnum, {
  name: 'WebhookEventType',
  description: 'An event a webhook endpoint may receive; its payload `type` is the name with a dot (`approval.requested`)',
});
export const WebhookDeliveryStatusEnum = graphqlEnum(
  DELIVERY_STATUSES,
  'WebhookDeliveryStatus',
  'pending (attempts remain), delivered, or failed (given up)',
);
export const WebhookAttemptOutcomeEnum = graphqlEnum(ATTEMPT_OUTCOMES, 'WebhookAttemptOutcome');

@ObjectType('WebhookEndpoint', { description: 'Where the org’s events are sent; its signing secret is shown once, by createWebhookEndpoint' })
export class WebhookEndpointType {
  @Field(() => ID)
  id!: string;

  @Field()
  url!: string;

  @Field(() => [WebhookEventTypeEnum])
  eventTypes!: WebhookEventType[];

  @Field()
  enabled!: boolean;

  @Field(() => String, { nullable: true, description: '`admin`, or `gone` when the receiver answered 410' })
  disabledReason!: string | null;

  @Field()
  createdAt!: Date;
}

export const WebhookEndpointConnection = connectionType(WebhookEndpointType, 'WebhookEndpoint');

@ObjectType('CreatedWebhookEndpoint')
export class CreatedWebhookEndpointType {
  @Field(() => WebhookEndpointType)
  endpoint!: WebhookEndpointType;

  @Field({ description: 'The signing secret (`whsec_…`, Standard Webhooks): shown only in this answer, store it now' })
  secret!: string;
}

@ObjectType('WebhookAttempt', { description: 'One HTTP attempt of a delivery' })
export class WebhookAttemptType {
  @Field(() => Int)
  attempt!: number;

  @Field(() => WebhookAttemptOutcomeEnum)
  outcome!: AttemptOutcome;

  @Field(() => Int, { nullable: true })
  httpStatus!: number | null;

  @Field(() => String, {
    nullable: true,
    description: '`http_error`, `gone` (410), `timeout`, `unreachable` (refused by the egress policy or no connection), `secret_unreadable`',
  })
  errorCode!: string | null;

  @Field(() => Int)
  durationMs!: number;

  @Field()
  startedAt!: Date;
}

@ObjectType('WebhookDelivery', { description: 'One event for one endpoint, and its attempts' })
export class WebhookDeliveryType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { description: 'The ledger event it reports; the `webhook-id` header' })
  eventId!: string;

  @Field(() => WebhookEventTypeEnum)
  eventType!: WebhookEventType;

  @Field(() => WebhookDeliveryStatusEnum)
  status!: DeliveryStatus;

  @Field(() => Date, { nullable: true })
  nextAttemptAt!: Date | null;

  @Field(() => Date, { nullable: true })
  deliveredAt!: Date | null;

  @Field()
  createdAt!: Date;

  @Field(() => [WebhookAttemptType])
  attempts!: WebhookAttemptType[];
}

export const WebhookDeliveryConnection = connectionType(WebhookDeliveryType, 'WebhookDelivery');

export const toWebhookEndpointType = (e: WebhookEndpoint): WebhookEndpointType => ({
  id: e.id,
  url: e.url,
  eventTypes: e.eventTypes,
  enabled: e.enabled,
  disabledReason: e.disabledReason,
  createdAt: e.createdAt,
});

const toAttemptType = (a: WebhookAttempt): WebhookAttemptType => ({
  attempt: a.attempt,
  outcome: a.outcome,
  httpStatus: a.httpStatus,
  errorCode: a.errorCode,
  durationMs: a.durationMs,
  startedAt: a.startedAt,
});

export const toWebhookDeliveryType = ({ delivery, attempts }: { delivery: WebhookDelivery; attempts: WebhookAttempt[] }): WebhookDeliveryType => ({
  id: delivery.id,
  eventId: delivery.ledgerEventId,
  eventType: delivery.eventType,
  status: delivery.status,
  nextAttemptAt: delivery.nextAttemptAt,
  deliveredAt: delivery.deliveredAt,
  createdAt: delivery.createdAt,
  attempts: attempts.map(toAttemptType),
});
