import { ArrayType, Entity, Index, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import type { CredentialEnvelope } from '../credentials/credential-envelope';
import type { WebhookEventType } from './webhook-events';

/**
 * Where an org's admin wants its approval and run events sent. The signing secret is
 * sealed like a vendor credential (envelope encryption, versioned master key), so
 * `toolgate credentials rotate` re-wraps it too; no API field returns it after creation.
 */
@Entity({ tableName: 'webhook_endpoints' })
@Index({ properties: ['orgId'] })
export class WebhookEndpoint {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @Property({ type: 'text' })
  url!: string;

  @Property({ type: ArrayType })
  eventTypes!: WebhookEventType[];

  @Property({ type: 'jsonb' })
  encryptedSecret!: CredentialEnvelope;

  @Property({ type: 'integer' })
  keyVersion!: number;

  @Property({ type: 'boolean', default: true })
  enabled: Opt<boolean> = true;

  /** Why it was turned off: `admin`, or `gone` (it answered 410). */
  @Property({ type: 'text', nullable: true })
  disabledReason: string | null = null;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();

  /** Deleted endpoints are kept (their deliveries stay auditable) but never listed or sent to. */
  @Property({ ...TIMESTAMPTZ, nullable: true })
  deletedAt: Date | null = null;
}
