import { AppError } from '../errors/app-error';

/**
 * A token bucket per API key, in this process's memory: `points` is the burst, refilled
 * at `pointsPerSecond`; each operation takes its cost (src/api/limits.ts). With several
 * API nodes each node keeps its own buckets, so a key's effective budget is per node
 * (put a shared store behind `take` to make it global).
 */
export interface RateLimitSettings {
  points: number;
  pointsPerSecond: number;
}

export type RateLimitVerdict = { allowed: true; remaining: number } | { allowed: false; remaining: number; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Buckets idle long enough to be full again are dropped when the map grows past this. */
const PRUNE_ABOVE = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes `cost` points from `key`'s bucket, or nothing when it does not hold enough. */
  take(key: string, cost: number): RateLimitVerdict {
    const now = this.now();
    const bucket = this.refilled(key, now);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return { allowed: true, remaining: Math.floor(bucket.tokens) };
    }
    const missing = Math.min(cost, this.settings.points) - bucket.tokens;
    return {
      allowed: false,
      remaining: Math.floor(bucket.tokens),
      retryAfterSeconds: Math.max(1, Math.ceil(missing / this.settings.pointsPerSecond)),
    };
  }

  /** Like `take`, but throws RATE_LIMITED (with `retryAfter` seconds) when refused. */
  charge(key: string, cost: number): void {
    const verdict = this.take(key, cost);
    if (!verdict.allowed) {
      throw new AppError('RATE_LIMITED', `Rate limit exceeded for this API key; retry after ${verdict.retryAfterSeconds} s`, {
        retryAfter: verdict.retryAfterSeconds,
        cost,
      });
    }
  }

  private refilled(key: string, now: number): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= PRUNE_ABOVE) this.prune(now);
      bucket = { tokens: this.settings.points, updatedAt: now };
      this.buckets.set(key, bucket);
      return bucket;
    }
    const elapsedSeconds = Math.max(0, now - bucket.updatedAt) / 1000;
    bucket.tokens = Math.min(this.settings.points, bucket.tokens + elapsedSeconds * this.settings.pointsPerSecond);
    bucket.updatedAt = now;
    return bucket;
  }

  private prune(now: number): void {
    const fullAfterMs = (this.settings.points / this.settings.pointsPerSecond) * 1000;
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.updatedAt >= fullAfterMs) this.buckets.delete(key);
    }
  }
}

/** A limiter that never refuses (RATE_LIMIT_ENABLED=false). */
export const UNLIMITED: Pick<RateLimiter, 'take' | 'charge'> = {
  take: () => ({ allowed: true, remaining: Number.POSITIVE_INFINITY }),
  charge: () => undefined,
};
