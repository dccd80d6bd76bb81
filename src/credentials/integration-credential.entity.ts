import { Entity, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { newId, TIMESTAMPTZ } from '../db/columns';
import { Org } from '../orgs/org.entity';
import type { CredentialEnvelope } from './credential-envelope';

/** A vendor credential of an org. `encryptedConfig` never leaves the credentials module. */
@Entity({ tableName: 'integration_credentials' })
@Unique({ properties: ['orgId', 'integrationType'] })
export class IntegrationCredential {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @ManyToOne(() => Org, { mapToPk: true, fieldName: 'org_id' })
  orgId!: string;

  @Property({ type: 'text' })
  integrationType!: string;

  @Property({ type: 'json' })
  encryptedConfig!: CredentialEnvelope;

  @Property({ type: 'integer' })
  keyVersion!: number;

  @Property({ ...TIMESTAMPTZ })
  createdAt: Opt<Date> = new Date();

  @Property({ ...TIMESTAMPTZ })
  updatedAt: Opt<Date> = new Date();
}
