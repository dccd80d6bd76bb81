import type { EntityManager } from '@mikro-orm/postgresql';
import { badInput, notFound } from '../errors/app-error';
import type { Caller } from '../auth/caller';
import type { MasterKeyring } from '../credentials/keyring';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { isUuid } from '../db/ids';
import { paginate, type Connection, type PageRequest } from '../graphql/paging';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookAttempt } from './webhook-attempt.entity';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-events';
import { newWebhookSecret, sealWebhookSecret } from './webhook-secret';
import { enqueueDelivery } from './webhook-jobs';
import { reopenDelivery } from './webhook-deliverer';
import type { Egress } from '../egress/egress';

export const MAX_WEBHOOK_URL = 2048;
/** Endpoints one org may have (each event is sent to each of them). */
export const MAX_ENDPOINTS_PER_ORG = 20;

/**
 * Registers an endpoint for the caller's org. The URL is the admin's to choose within the
 * egress policy (public addresses unless the operator opened a range: EGRESS_REFUSED
 * otherwise); credentials in it are refused, they would be listed back. The secret is
 * generated, sealed, and answered here only. Events appended after this commit are sent to it.
 */
export async function createWebhookEndpoint(
  em: EntityManager,
  keyring: MasterKeyring,
  egress: Egress,
  caller: Caller,
  input: { url: string; eventTypes: readonly string[] },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = parseWebhookUrl(input.url);
  const eventTypes = parseEventTypes(input.eventTypes);
  await egress.check(url);
  return em.transactional(async (tx) => {
    const count = await tx.count(WebhookEndpoint, { orgId: caller.orgId, deletedAt: null });
    if (count >= MAX_ENDPOINTS_PER_ORG) throw badInput(`an org may have at most ${MAX_ENDPOINTS_PER_ORG} webhook endpoints`, { field: 'url' });
    const secret = newWebhookSecret();
    const endpoint = tx.create(WebhookEndpoint, {
      orgId: caller.orgId,
      url,
      eventTypes,
      encryptedSecret: null as never,
      keyVersion: keyring.current.version,
    });
    endpoint.encryptedSecret = sealWebhookSecret(keyring, caller.orgId, endpoint.id, secret);
    await tx.flush();
    await appendLedgerEvent(tx, {
      orgId: caller.orgId,
      type: 'webhook_endpoint.created',
      resourceId: endpoint.id,
      actor: caller,
      // The origin only: a path or query may carry a token, and the ledger keeps everything forever.
      metadata: { origin: new URL(url).origin, eventTypes },
    });
    return { endpoint, secret };
  });
}

/** Turns an endpoint on or off (an endpoint that answered 410 was turned off: `gone`). */
export async function setWebhookEndpointEnabled(em: EntityManager, caller: Caller, id: string, enabled: boolean): Promise<WebhookEndpoint> {
  return em.transactional(async (tx) => {
    const endpoint = await findWebhookEndpoint(tx, caller.orgId, id);
    if (endpoint.enabled === enabled) return endpoint;
    endpoint.enabled = enabled;
    endpoint.disabledReason = enabled ? null : 'admin';
    await tx.flush();
    await appendLedgerEvent(tx, {
      orgId: caller.orgId,
      type: enabled ? 'webhook_endpoint.enabled' : 'webhook_endpoint.disabled',
      resourceId: endpoint.id,
      actor: caller,
      metadata: enabled ? {} : { reason: 'admin' },
    });
    return endpoint;
  });
}

/** Deletes an endpoint: nothing more is sent to it; its rows stay for the audit trail but are no longer listed. */
export async function deleteWebhookEndpoint(em: EntityManager, caller: Caller, id: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const endpoint = await findWebhookEndpoint(tx, caller.orgId, id);
    endpoint.deletedAt = new Date();
    endpoint.enabled = false;
    await tx.flush();
    await appendLedgerEvent(tx, { orgId: caller.orgId, type: 'webhook_endpoint.deleted', resourceId: endpoint.id, actor: caller });
    return true;
  });
}

/** An endpoint of the org that is not deleted; anything else (another org's included) is NOT_FOUND. */
export async function findWebhookEndpoint(em: EntityManager, orgId: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = isUuid(id) ? await em.findOne(WebhookEndpoint, { id, orgId, deletedAt: null }) : null;
  if (!endpoint) throw notFound('Webhook endpoint');
  return endpoint;
}

export function listWebhookEndpoints<N>(
  em: EntityManager,
  orgId: string,
  args: PageRequest,
  toNode: (e: WebhookEndpoint) => N,
): Promise<Connection<N>> {
  return paginate(em, WebhookEndpoint, { orgId, deletedAt: null }, args, 'newest_first', toNode);
}

export interface DeliveryWithAttempts {
  delivery: WebhookDelivery;
  attempts: WebhookAttempt[];
}

/** An endpoint's deliveries, newest first, each with its attempts (one statement for the page's attempts). */
export async function listWebhookDeliveries(
  em: EntityManager,
  orgId: string,
  endpointId: string,
  args: PageRequest,
): Promise<Connection<DeliveryWithAttempts>> {
  await findWebhookEndpoint(em, orgId, endpointId);
  const page = await paginate(em, WebhookDelivery, { orgId, endpointId }, args, 'newest_first', (delivery) => delivery);
  const ids = page.edges.map((e) => e.node.id);
  const attempts = ids.length === 0 ? [] : await em.find(WebhookAttempt, { deliveryId: { $in: ids } }, { orderBy: { attempt: 'asc' } });
  return {
    ...page,
    edges: page.edges.map((edge) => ({
      cursor: edge.cursor,
      node: { delivery: edge.node, attempts: attempts.filter((a) => a.deliveryId === edge.node.id) },
    })),
  };
}

/**
 * Sends a delivery again now: a pending one skips its wait, a delivered or failed one is
 * pending again (the same webhook-id and payload, attempts continue their numbering).
 */
export async function redeliverWebhook(em: EntityManager, caller: Caller, deliveryId: string): Promise<WebhookDelivery> {
  return em.transactional(async (tx) => {
    const delivery = isUuid(deliveryId) ? await tx.findOne(WebhookDelivery, { id: deliveryId, orgId: caller.orgId }) : null;
    if (!delivery) throw notFound('Webhook delivery');
    const endpoint = await findWebhookEndpoint(tx, caller.orgId, delivery.endpointId).catch(() => null);
    if (!endpoint) throw notFound('Webhook delivery');
    if (!endpoint.enabled) throw badInput('the endpoint is disabled: enable it first', { field: 'id' });
    await reopenDelivery(tx, delivery);
    await enqueueDelivery(tx, delivery, null);
    return delivery;
  });
}

/** An http(s) URL without user info, at most MAX_WEBHOOK_URL characters. */
export function parseWebhookUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badInput('url must be an absolute http(s) URL', { field: 'url' });
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || value.length > MAX_WEBHOOK_URL) {
    throw badInput(`url must be an http(s) URL of at most ${MAX_WEBHOOK_URL} characters`, { field: 'url' });
  }
  if (url.username || url.password) throw badInput('url must not carry credentials: receivers verify the signature instead', { field: 'url' });
  return url.toString();
}

function parseEventTypes(values: readonly string[]): WebhookEventType[] {
  const unique = [...new Set(values)];
  if (unique.length === 0) throw badInput('eventTypes must name at least one event type', { field: 'eventTypes' });
  const unknown = unique.filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) throw badInput(`eventTypes must be among ${WEBHOOK_EVENT_TYPES.join(', ')}`, { field: 'eventTypes' });
  return unique as WebhookEventType[];
}
