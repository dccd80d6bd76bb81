import { Field, InputType, ObjectType } from 'type-graphql';
import type { BindingOfOrg } from './identity-bindings';
import type { IdentityBinding } from './identity-binding.entity';

@ObjectType('PersonIdentity', {
  description: 'A person as their identity provider knows them: issuer and subject, and their name when the org records names',
})
export class PersonIdentityType {
  @Field({ description: "The issuer's identifier (an ID token's iss)" })
  issuer!: string;

  @Field({ description: "The person's subject at that issuer (sub): stable, unlike a name" })
  subject!: string;

  @Field(() => String, { nullable: true })
  name!: string | null;
}

@ObjectType('IdentityBinding', { description: "The org's single sign-on: its issuer, tenant, and which claim values give which role" })
export class IdentityBindingType {
  @Field({ description: 'The issuer, by its name in OIDC_ISSUERS' })
  issuerName!: string;

  @Field(() => String, { nullable: true, description: "The issuer's identifier, when the deployment still configures it" })
  issuer!: string | null;

  @Field(() => String, { nullable: true, description: "The claim that tells this org's people apart on a shared issuer (e.g. tid, hd, tenant)" })
  tenantClaim!: string | null;

  @Field(() => String, { nullable: true })
  tenantValue!: string | null;

  @Field({ description: 'The claim whose values (e.g. groups) give roles' })
  roleClaim!: string;

  @Field(() => [String], { description: 'Claim values that make a person an admin' })
  admin!: string[];

  @Field(() => [String], { description: 'Claim values that make a person an expert' })
  expert!: string[];

  @Field(() => [String], { description: 'Claim values that make a person a client' })
  client!: string[];

  @Field(() => String, { nullable: true, description: 'An OAuth access token with this scope acts as an agent of the org at /mcp' })
  agentScope!: string | null;

  @Field({ description: "Whether the ledger keeps people's names (else issuer and subject only)" })
  recordNames!: boolean;
}

@InputType('IdentityBindingInput')
export class IdentityBindingInput {
  @Field({ description: 'The issuer, by its name in OIDC_ISSUERS' })
  issuerName!: string;

  @Field(() => String, { nullable: true, description: 'With tenantValue: only people whose claim has this value belong to the org' })
  tenantClaim?: string | null;

  @Field(() => String, { nullable: true })
  tenantValue?: string | null;

  @Field(() => String, { nullable: true, description: 'Default groups' })
  roleClaim?: string | null;

  @Field(() => [String], { nullable: true })
  admin?: string[] | null;

  @Field(() => [String], { nullable: true })
  expert?: string[] | null;

  @Field(() => [String], { nullable: true })
  client?: string[] | null;

  @Field(() => String, { nullable: true, description: 'Default none: no OAuth token acts as an agent' })
  agentScope?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Default true' })
  recordNames?: boolean | null;
}

export const toIdentityBindingType = (binding: BindingOfOrg | IdentityBinding, issuer: string | null): IdentityBindingType => ({
  issuerName: binding.issuerName,
  issuer,
  tenantClaim: binding.tenantClaim,
  tenantValue: binding.tenantValue,
  roleClaim: binding.roleClaim,
  admin: binding.roleMap.admin ?? [],
  expert: binding.roleMap.expert ?? [],
  client: binding.roleMap.client ?? [],
  agentScope: binding.agentScope,
  recordNames: binding.recordNames,
});

/** A ledger event's `metadata.person`, when it is one. */
export function personOfMetadata(metadata: Record<string, unknown>): PersonIdentityType | null {
  const person = metadata.person as { issuer?: unknown; subject?: unknown; name?: unknown } | undefined;
  if (!person || typeof person.issuer !== 'string' || typeof person.subject !== 'string') return null;
  return { issuer: person.issuer, subject: person.subject, name: typeof person.name === 'string' ? person.name : null };
}
