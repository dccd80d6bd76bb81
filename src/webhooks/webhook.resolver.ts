import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { PageArgs } from '../graphql/pagination';
import type { WebhookEventType } from './webhook-events';
import {
  CreatedWebhookEndpointType,
  toWebhookDeliveryType,
  toWebhookEndpointType,
  WebhookDeliveryConnection,
  WebhookDeliveryType,
  WebhookEndpointConnection,
  WebhookEndpointType,
  WebhookEventTypeEnum,
} from './webhook.types';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhook,
  setWebhookEndpointEnabled,
} from './webhook.service';
import type { MasterKeyring } from '../credentials/keyring';
import type { Egress } from '../egress/egress';

declare module '../graphql/context' {
  interface RequestServices {
    keyring: MasterKeyring;
    egress: Egress;
  }
}

@Resolver()
export class WebhookResolver {
  @Authorized()
  @Query(() => WebhookEndpointConnection, { description: "The org's webhook endpoints, newest first; never their secrets" })
  async webhookEndpoints(@Args(() => PageArgs) args: PageArgs, @Ctx() ctx: RequestContext) {
    return listWebhookEndpoints(ctx.em, requireCaller(ctx).orgId, args, toWebhookEndpointType);
  }

  @Authorized()
  @Query(() => WebhookDeliveryConnection, { description: "An endpoint's deliveries, newest first, each with its attempts" })
  async webhookDeliveries(@Arg('endpointId', () => ID) endpointId: string, @Args(() => PageArgs) args: PageArgs, @Ctx() ctx: RequestContext) {
    const page = await listWebhookDeliveries(ctx.em, requireCaller(ctx).orgId, endpointId, args);
    return { ...page, edges: page.edges.map((e) => ({ cursor: e.cursor, node: toWebhookDeliveryType(e.node) })) };
  }

  @Authorized()
  @Mutation(() => CreatedWebhookEndpointType, { description: 'Register an endpoint for the org’s events; its signing secret is in this answer only' })
  async createWebhookEndpoint(
    @Arg('url') url: string,
    @Arg('eventTypes', () => [WebhookEventTypeEnum]) eventTypes: WebhookEventType[],
    @Ctx() ctx: RequestContext,
  ): Promise<CreatedWebhookEndpointType> {
    const { endpoint, secret } = await createWebhookEndpoint(ctx.em, ctx.services.keyring, ctx.services.egress, requireCaller(ctx), {
      url,
      eventTypes,
    });
    return { endpoint: toWebhookEndpointType(endpoint), secret };
  }

  @Authorized()
  @Mutation(() => WebhookEndpointType, { description: 'Turn an endpoint on or off (off: its pending deliveries are given up)' })
  async setWebhookEndpointEnabled(
    @Arg('id', () => ID) id: string,
    @Arg('enabled') enabled: boolean,
    @Ctx() ctx: RequestContext,
  ): Promise<WebhookEndpointType> {
    return toWebhookEndpointType(await setWebhookEndpointEnabled(ctx.em, requireCaller(ctx), id, enabled));
  }

  @Authorized()
  @Mutation(() => Boolean, { description: 'Delete an endpoint: nothing more is sent to it' })
  async deleteWebhookEndpoint(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<boolean> {
    return deleteWebhookEndpoint(ctx.em, requireCaller(ctx), id);
  }

  @Authorized()
  @Mutation(() => WebhookDeliveryType, { description: 'Send a delivery again now (same webhook-id and payload)' })
  async redeliverWebhook(@Arg('deliveryId', () => ID) deliveryId: string, @Ctx() ctx: RequestContext): Promise<WebhookDeliveryType> {
    const delivery = await redeliverWebhook(ctx.em, requireCaller(ctx), deliveryId);
    return toWebhookDeliveryType({ delivery, attempts: [] });
  }
}
