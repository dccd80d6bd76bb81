import type { Knex } from '@mikro-orm/postgresql';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { createClient } from 'redis';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../support/logger';
import type { Caller } from '../auth/caller';
import { AppError } from '../errors/app-error';

/**
 * Request budgets shared by every node (rate-limiter-flexible): a fixed window of `points`
 * per `windowSeconds` for each API key, charged with each operation's cost, and a smaller
 * one per client address for requests without a valid key. The counters live in Redis when
 * REDIS_URL is set, else in PostgreSQL (the unlogged table rate_limits.counters); when the
 * store cannot be reached each node falls back to a budget of its own in memory.
 */
export interface RateLimitSettings {
  enabled: boolean;
  /** A key's budget per window (RATE_LIMIT_POINTS). */
  points: number;
  /** The window is points / pointsPerSecond seconds (RATE_LIMIT_POINTS_PER_SECOND). */
  pointsPerSecond: number;
  /** Requests per minute from one address without a valid key (RATE_LIMIT_ANONYMOUS_PER_MINUTE). */
  anonymousPerMinute: number;
}

export interface RateVerdict {
  policy: string;
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

export type RateLimitStore = { kind: 'redis'; client: ReturnType<typeof createClient> } | { kind: 'postgres'; knex: Knex } | { kind: 'memory' };

interface Budget {
  policy: string;
  limiter: RateLimiterAbstract;
  points: number;
  windowSeconds: number;
}

export class RateLimits {
  private readonly keys: Budget;
  private readonly anonymous: Budget;

  constructor(
    readonly settings: RateLimitSettings,
    store: RateLimitStore,
  ) {
    const windowSeconds = Math.max(1, Math.ceil(settings.points / settings.pointsPerSecond));
    this.keys = budget('key', settings.points, windowSeconds, store);
    this.anonymous = budget('anonymous', settings.anonymousPerMinute, 60, store);
  }

  /** Takes `cost` from the API key's budget; RATE_LIMITED (with the verdict) when it does not fit. */
  charge(key: string, cost: number): Promise<RateVerdict> {
    return this.consume(this.keys, key, cost, 'this API key');
  }

  /** One request without a valid key, from `address`. */
  chargeAnonymous(address: string): Promise<RateVerdict> {
    return this.consume(this.anonymous, address, 1, 'requests without a valid API key from this address');
  }

  private async consume(budget: Budget, key: string, cost: number, whose: string): Promise<RateVerdict> {
    if (!this.settings.enabled)
      return { policy: budget.policy, limit: budget.points, windowSeconds: budget.windowSeconds, remaining: budget.points, resetSeconds: 0 };
    try {
      return verdictOf(budget, await budget.limiter.consume(key, cost));
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      // The store counted the refused cost too; give it back, so a cheaper operation still fits.
      const restored = await budget.limiter.reward(key, cost).catch(() => refusal);
      const verdict = verdictOf(budget, restored);
      throw new AppError('RATE_LIMITED', `Rate limit exceeded for ${whose}; retry after ${verdict.resetSeconds} s`, {
        retryAfter: verdict.resetSeconds,
        cost,
        rateLimit: verdict,
      });
    }
  }
}

function budget(policy: string, points: number, windowSeconds: number, store: RateLimitStore): Budget {
  const options = { keyPrefix: `toolgate:${policy}`, points, duration: windowSeconds };
  // A node's own budget while the shared store is unreachable: limited, never wide open.
  const insuranceLimiter = new RateLimiterMemory(options);
  let limiter: RateLimiterAbstract;
  if (store.kind === 'redis') {
    limiter = new RateLimiterRedis({ ...options, storeClient: store.client, useRedisPackage: true, insuranceLimiter });
  } else if (store.kind === 'postgres') {
    limiter = new RateLimiterPostgres({
      ...options,
      storeClient: store.knex,
      storeType: 'knex',
      schemaName: 'rate_limits',
      tableName: 'counters',
      tableCreated: true, // by the migration
      clearExpiredByTimeout: true, // every 5 minutes, rows expired an hour ago (unref'd timer)
      insuranceLimiter,
    });
  } else {
    limiter = insuranceLimiter;
  }
  return { policy, limiter, points, windowSeconds };
}

function verdictOf(budget: Budget, res: RateLimiterRes): RateVerdict {
  return {
    policy: budget.policy,
    limit: budget.points,
    windowSeconds: budget.windowSeconds,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): the policy
 * (quota q per window w seconds) and what is left of it (r remaining, t seconds to reset).
 */
export function rateLimitHeaders(verdict: RateVerdict): Record<string, string> {
  return {
    'ratelimit-policy': `"${verdict.policy}";q=${verdict.limit};w=${verdict.windowSeconds}`,
    ratelimit: `"${verdict.policy}";r=${verdict.remaining};t=${verdict.resetSeconds}`,
  };
}

/** The configured limits on their store: Redis when REDIS_URL is set, else PostgreSQL. */
export async function openRateLimits(
  settings: RateLimitSettings,
  redisUrl: string | undefined,
  orm: MikroORM,
  logger: Logger,
): Promise<{ limits: RateLimits; close(): Promise<void>; connected(): boolean }> {
  if (!settings.enabled) return { limits: new RateLimits(settings, { kind: 'memory' }), close: async () => undefined, connected: () => true };
  if (redisUrl) {
    // Commands fail at once while Redis is gone (no offline queue holding every request): the in-memory insurance limiter answers instead.
    const client = createClient({ url: redisUrl, disableOfflineQueue: true });
    let downSince: number | null = null;
    client.on('error', (error: unknown) => {
      if (downSince !== null) return; // one line per outage, not one per reconnection attempt
      downSince = Date.now();
      logger.warn({ err: error }, 'rate limit store (redis) unreachable: each node counts in memory until it is back');
    });
    client.on('ready', () => {
      if (downSince === null) return;
      logger.warn({ afterMs: Date.now() - downSince }, 'rate limit store (redis) reachable again');
      downSince = null;
    });
    await client.connect();
    return {
      limits: new RateLimits(settings, { kind: 'redis', client }),
      close: () => client.quit().then(() => undefined),
      connected: () => client.isReady,
    };
  }
  return {
    limits: new RateLimits(settings, { kind: 'postgres', knex: orm.em.getConnection().getKnex() }),
    close: async () => undefined,
    connected: () => true,
  };
}

/** Whose budget a caller spends: its API key's (keyless callers, e.g. the runtime, by org and role). */
export function rateLimitKey(caller: Caller): string {
  return caller.keyId ?? `org:${caller.orgId}:${caller.role}`;
}

/** Whether `error` is a spent budget (RATE_LIMITED from `charge` or `chargeAnonymous`). */
export function isRateLimited(error: unknown): error is AppError {
  return error instanceof AppError && error.code === 'RATE_LIMITED';
}

/** A 429's header fields: Retry-After and the RateLimit fields of the spent budget. */
export function refusalHeaders(error: AppError): Record<string, string> {
  const verdict = error.details.rateLimit as RateVerdict | undefined;
  const retryAfter = { 'retry-after': String(error.details.retryAfter ?? verdict?.resetSeconds ?? 1) };
  return verdict ? { ...retryAfter, ...rateLimitHeaders(verdict) } : retryAfter;
}
