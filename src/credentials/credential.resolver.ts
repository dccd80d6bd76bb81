import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { IntegrationCredentialType, toCredentialType } from './credential.types';
import { putIntegrationCredential } from './credential.service';
import type { MasterKeyring } from './keyring';

declare module '../graphql/context' {
  interface RequestServices {
    keyring: MasterKeyring;
  }
}

@Resolver()
export class CredentialResolver {
  @Authorized()
  @Mutation(() => IntegrationCredentialType, {
    description: 'Store or replace the vendor credential of an integration (encrypted; never readable back)',
  })
  async putIntegrationCredential(
    @Arg('integrationType') integrationType: string,
    @Arg('config', () => GraphQLJSONObject) config: Record<string, unknown>,
    @Ctx() ctx: RequestContext,
  ): Promise<IntegrationCredentialType> {
    const credential = await putIntegrationCredential(ctx.em, ctx.services.keyring, requireCaller(ctx), integrationType, config);
    return toCredentialType(credential);
  }
}
