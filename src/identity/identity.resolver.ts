import { Arg, Authorized, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { ViewerType } from '../orgs/org.types';
import { LedgerEventType } from '../ledger/ledger.types';
import { ApprovalRequestType } from '../approvals/approval.types';
import { ApiKeyType } from '../auth/api-key.types';
import { isUuid } from '../db/ids';
import type { Identity } from './identity';
import { bindingOfOrg, removeIdentityBinding, setIdentityBinding } from './identity-bindings';
import { IdentityBindingInput, IdentityBindingType, PersonIdentityType, personOfMetadata, toIdentityBindingType } from './identity.types';

declare module '../graphql/context' {
  interface RequestServices {
    identity: Identity;
  }
}

@Resolver()
export class IdentityBindingResolver {
  @Authorized()
  @Query(() => IdentityBindingType, { nullable: true, description: "The org's single sign-on (null: its people sign in with keys only)" })
  async identityBinding(@Ctx() ctx: RequestContext): Promise<IdentityBindingType | null> {
    const binding = await bindingOfOrg(ctx.em, requireCaller(ctx).orgId);
    return binding ? toIdentityBindingType(binding, ctx.services.identity.issuers.byName(binding.issuerName)?.issuer ?? null) : null;
  }

  @Authorized()
  @Mutation(() => IdentityBindingType, {
    description:
      'Bind the org to an issuer of OIDC_ISSUERS (replacing its binding): which tenant, and which claim values give which role. Recorded in the ledger (identity.changed); CONFLICT when another org is bound to the same issuer and tenant',
  })
  async setIdentityBinding(
    @Arg('input', () => IdentityBindingInput) input: IdentityBindingInput,
    @Ctx() ctx: RequestContext,
  ): Promise<IdentityBindingType> {
    const caller = requireCaller(ctx);
    const { issuers } = ctx.services.identity;
    const binding = await setIdentityBinding(ctx.em, issuers, caller.orgId, caller, {
      ...input,
      roleMap: { admin: input.admin ?? [], expert: input.expert ?? [], client: input.client ?? [] },
    });
    return toIdentityBindingType(binding, issuers.byName(binding.issuerName)?.issuer ?? null);
  }

  @Authorized()
  @Mutation(() => Boolean, { description: "Remove the org's single sign-on (false: it had none); its people's sessions run out" })
  async removeIdentityBinding(@Ctx() ctx: RequestContext): Promise<boolean> {
    const caller = requireCaller(ctx);
    return removeIdentityBinding(ctx.em, caller.orgId, caller);
  }
}

@Resolver(() => ViewerType)
export class ViewerPersonResolver {
  @FieldResolver(() => PersonIdentityType, { nullable: true, description: 'The signed-in person (null: an API key)' })
  person(@Ctx() ctx: RequestContext): PersonIdentityType | null {
    const person = requireCaller(ctx).person;
    return person ? { issuer: person.issuer, subject: person.subject, name: person.name } : null;
  }
}

@Resolver(() => LedgerEventType)
export class LedgerEventPersonResolver {
  @FieldResolver(() => PersonIdentityType, {
    nullable: true,
    description: 'The person who did it, as recorded (null: a key, the runtime or an operator)',
  })
  person(@Root() event: LedgerEventType): PersonIdentityType | null {
    return personOfMetadata(event.metadata);
  }
}

@Resolver(() => ApprovalRequestType)
export class ApprovalPersonResolver {
  @FieldResolver(() => PersonIdentityType, { nullable: true, description: 'The person who resolved it (null: a key, expiry, or not resolved yet)' })
  async resolvedByPerson(@Root() approval: ApprovalRequestType, @Ctx() ctx: RequestContext): Promise<PersonIdentityType | null> {
    if (!approval.resolvedBy || !isUuid(approval.resolvedBy)) return null;
    const principal = await ctx.loaders.apiKeyById.load(approval.resolvedBy);
    const person = principal?.personId ? await ctx.loaders.personById.load(principal.personId) : null;
    return person ? { issuer: person.issuer, subject: person.subject, name: person.displayName } : null;
  }
}

@Resolver(() => ApiKeyType)
export class ApiKeyPersonResolver {
  @FieldResolver(() => PersonIdentityType, {
    nullable: true,
    description: "A person's principal, not a key: the person who acts through it (revoke it to take that role away from them)",
  })
  async person(@Root() key: ApiKeyType, @Ctx() ctx: RequestContext): Promise<PersonIdentityType | null> {
    const person = key.personId ? await ctx.loaders.personById.load(key.personId) : null;
    return person ? { issuer: person.issuer, subject: person.subject, name: person.displayName } : null;
  }
}
