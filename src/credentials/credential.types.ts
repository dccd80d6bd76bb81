import { Field, ID, Int, ObjectType } from 'type-graphql';
import type { IntegrationCredential } from './integration-credential.entity';

/** What the API tells about a credential: that it exists. Never its config. */
@ObjectType('IntegrationCredential')
export class IntegrationCredentialType {
  @Field(() => ID)
  id!: string;

  @Field()
  integrationType!: string;

  @Field(() => Int)
  keyVersion!: number;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;
}

export const toCredentialType = (c: IntegrationCredential): IntegrationCredentialType => ({
  id: c.id,
  integrationType: c.integrationType,
  keyVersion: c.keyVersion,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});
