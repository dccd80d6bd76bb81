import { Field, ID, ObjectType } from 'type-graphql';
import type { Role } from './roles';
import type { ApiKey } from './api-key.entity';
import { RoleEnum } from '../orgs/org.types';
import { connectionType } from '../graphql/pagination';

@ObjectType('ApiKey', { description: 'An API key of the org; its secret is shown once, by createApiKey, and never again' })
export class ApiKeyType {
  /** A person's principal: the person (read by the person field, src/identity/). */
  personId!: string | null;

  @Field(() => ID)
  id!: string;

  @Field(() => RoleEnum)
  role!: Role;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field({ description: 'The first characters of the secret, to tell keys apart' })
  prefix!: string;

  @Field()
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'Last use, written once a minute: up to a minute late' })
  lastUsedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'Refused from this instant on; null: never expires' })
  expiresAt!: Date | null;

  @Field(() => Date, { nullable: true })
  revokedAt!: Date | null;
}

export const ApiKeyConnection = connectionType(ApiKeyType, 'ApiKey');

@ObjectType('CreatedApiKey')
export class CreatedApiKeyType {
  @Field(() => ApiKeyType)
  apiKey!: ApiKeyType;

  @Field({ description: 'The key itself: shown only in this answer, store it now' })
  secret!: string;
}

export const toApiKeyType = (key: ApiKey): ApiKeyType => ({
  id: key.id,
  role: key.role,
  name: key.name,
  prefix: key.prefix,
  createdAt: key.createdAt,
  lastUsedAt: key.lastUsedAt,
  expiresAt: key.expiresAt,
  revokedAt: key.revokedAt,
  personId: key.personId,
});
