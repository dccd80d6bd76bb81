import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Webhook } from 'standardwebhooks';
import type { Clock } from '../support/clock';
import type { Config } from '../config';
import type { Logger } from '../support/logger';
import type { MasterKeyring } from '../credentials/keyring';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookDelivery, type DeliveryStatus } from './webhook-delivery.entity';
import { WebhookAttempt } from './webhook-attempt.entity';
import { buildWebhookPayload } from './webhook-payload';
import { openWebhookSecret } from './webhook-secret';
import { enqueueDelivery } from './webhook-jobs';
import { canonicalJson } from '../ledger/canonical-json';
import type { EgressFetch } from '../egress/egress';

/**
 * A delivery to be sent again now (redeliverWebhook): pending, due at once. The deliverer
 * is the one writer of a delivery's status (the attempts move it; this reopens it).
 */
export async function reopenDelivery(tx: EntityManager, delivery: WebhookDelivery): Promise<void> {
  const nextAttemptAt = new Date();
  await tx.nativeUpdate(WebhookDelivery, { id: delivery.id }, { status: 'pending', nextAttemptAt });
  Object.assign(delivery, { status: 'pending', nextAttemptAt });
}

/** How much longer each wait before a retry is than the one before. */
const BACKOFF_FACTOR = 5;

/**
 * The wait before retry `attempt` (1 = the wait after the first failed attempt): exponential
 * (base × 5^(n-1), capped) with jitter over its upper half, so receivers that failed together
 * are not retried together. Defaults: about 5 s, 25 s, 2 min, 10 min, 50 min, 4 h, 10 h.
 */
export function webhookRetryDelayMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * BACKOFF_FACTOR ** (attempt - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

interface AttemptResult {
  ok: boolean;
  httpStatus: number | null;
  /**
   * Null when ok; else `http_error`, `gone`, `timeout`, `unreachable` (no HTTP answer to
   * show: the egress policy refused the address or a redirect, the name did not resolve, the
   * connection failed), `secret_unreadable`.
   */
  errorCode: string | null;
}

export interface WebhookDelivererOptions {
  orm: MikroORM;
  keyring: MasterKeyring;
  settings: Config['webhooks'];
  logger: Logger;
  /** The time attempts are signed, timed and rescheduled with (tests move a manual one). */
  clock: Clock;
  /** The egress policy's fetch (src/egress/): refused addresses and redirects never reach the network. */
  fetch: EgressFetch;
}

/**
 * Makes one attempt of one delivery (the `webhook_deliver` job) and records it: the attempt
 * row, the delivery's new state and, when it failed and attempts remain, the job of the next
 * attempt at its backoff time — all in one transaction, so a crash before it leaves the job
 * to run again (at least once: the same webhook-id, for the receiver to drop a repeat).
 * 2xx is delivered; 410 turns the endpoint off; anything else is retried until
 * WEBHOOK_MAX_ATTEMPTS, then the delivery is `failed` (redeliverWebhook sends it again).
 */
export class WebhookDeliverer {
  constructor(private readonly options: WebhookDelivererOptions) {}

  async deliver(deliveryId: string): Promise<void> {
    const { orm, clock } = this.options;
    const em = orm.em.fork();
    const delivery = await em.findOne(WebhookDelivery, { id: deliveryId });
    if (delivery?.status !== 'pending') return;
    const endpoint = await em.findOneOrFail(WebhookEndpoint, { id: delivery.endpointId });
    if (!endpoint.enabled || endpoint.deletedAt) {
      await em.nativeUpdate(
        WebhookDelivery,
        { id: delivery.id, status: 'pending' },
        { status: 'failed', nextAttemptAt: null, lastErrorCode: 'endpoint_disabled' },
      );
      return;
    }
    if (!delivery.payload) {
      // Built once and kept: every retry sends the same bytes under the same webhook-id.
      delivery.payload = { ...(await buildWebhookPayload(em, delivery.eventType, delivery.ledgerEventId)) };
      await em.flush();
    }
    const startedAt = clock.now();
    const result = await this.attempt(endpoint, delivery);
    const durationMs = Math.max(0, clock.now() - startedAt);
    await em.transactional((tx) => this.record(tx, endpoint, delivery, result, new Date(startedAt), durationMs));
  }

  private async attempt(endpoint: WebhookEndpoint, delivery: WebhookDelivery): Promise<AttemptResult> {
    const { keyring, clock, settings, fetch } = this.options;
    let secret: string;
    try {
      secret = openWebhookSecret(keyring, endpoint.orgId, endpoint.id, endpoint.encryptedSecret);
    } catch {
      return { ok: false, httpStatus: null, errorCode: 'secret_unreadable' };
    }
    // Keys sorted: the stored payload (jsonb keeps no key order) gives the same bytes at every retry.
    const body = canonicalJson(delivery.payload);
    const sentAt = new Date(clock.now());
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Toolgate-Webhooks/1',
      'webhook-id': delivery.ledgerEventId,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(delivery.ledgerEventId, sentAt, body),
    };
    const abort = new AbortController();
    const cancelTimer = clock.after(settings.timeoutMs, () => abort.abort());
    try {
      // The egress fetch follows no redirect: a receiver that moved is an unreachable attempt, not a request to another host.
      const response = await fetch(endpoint.url, { method: 'POST', headers, body, signal: abort.signal });
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) return { ok: true, httpStatus: response.status, errorCode: null };
      return { ok: false, httpStatus: response.status, errorCode: response.status === 410 ? 'gone' : 'http_error' };
    } catch {
      // One outcome for a refused address, a redirect, a name that does not resolve and a failed
      // connection: the attempt records answer no questions about the network behind the URL.
      return { ok: false, httpStatus: null, errorCode: abort.signal.aborted ? 'timeout' : 'unreachable' };
    } finally {
      cancelTimer();
    }
  }

  private async record(
    tx: EntityManager,
    endpoint: WebhookEndpoint,
    delivery: WebhookDelivery,
    result: AttemptResult,
    startedAt: Date,
    durationMs: number,
  ) {
    const { clock, settings, logger } = this.options;
    const attempt = delivery.attempts + 1;
    const gone = result.errorCode === 'gone';
    const retry = !result.ok && !gone && attempt < settings.maxAttempts;
    const status: DeliveryStatus = result.ok ? 'delivered' : retry ? 'pending' : 'failed';
    const nextAttemptAt = retry ? new Date(clock.now() + webhookRetryDelayMs(attempt, settings.retryBaseMs, settings.retryMaxDelayMs)) : null;
    // Conditional on the attempt count it read: a concurrent attempt (a redelivery racing a retry) records once.
    const updated = await tx.nativeUpdate(
      WebhookDelivery,
      { id: delivery.id, status: 'pending', attempts: delivery.attempts },
      {
        status,
        attempts: attempt,
        nextAttemptAt,
        lastHttpStatus: result.httpStatus,
        lastErrorCode: result.errorCode,
        deliveredAt: result.ok ? new Date(clock.now()) : null,
      },
    );
    if (updated === 0) return;
    tx.create(WebhookAttempt, {
      orgId: delivery.orgId,
      deliveryId: delivery.id,
      attempt,
      outcome: result.ok ? 'succeeded' : 'failed',
      httpStatus: result.httpStatus,
      errorCode: result.errorCode,
      durationMs,
      startedAt,
    });
    await tx.flush();
    if (retry) await enqueueDelivery(tx, delivery, nextAttemptAt);
    if (gone) {
      const disabled = await tx.nativeUpdate(WebhookEndpoint, { id: endpoint.id, enabled: true }, { enabled: false, disabledReason: 'gone' });
      if (disabled > 0) {
        await appendLedgerEvent(tx, {
          orgId: endpoint.orgId,
          type: 'webhook_endpoint.disabled',
          resourceId: endpoint.id,
          metadata: { reason: 'gone' },
        });
      }
    }
    if (!result.ok) {
      logger.warn(
        { endpointId: endpoint.id, deliveryId: delivery.id, attempt, httpStatus: result.httpStatus, errorCode: result.errorCode, nextAttemptAt },
        'webhook attempt failed',
      );
    }
  }
}
