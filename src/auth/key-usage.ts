import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { Logger } from '../logger';

/** How often a node writes the keys it saw used: `lastUsedAt` is at most this late. */
export const KEY_USAGE_FLUSH_MS = 60_000;

/**
 * `api_keys.last_used_at` without a write per request: each use notes the key and the time
 * in memory, and one UPDATE writes every noted key once per KEY_USAGE_FLUSH_MS (a timer on
 * the injected clock, armed only while something is noted) and on shutdown. A node that
 * crashes loses at most its last interval of notes.
 */
export class KeyUsage {
  private noted = new Map<string, number>();
  private cancelTimer: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly intervalMs = KEY_USAGE_FLUSH_MS,
  ) {}

  touch(keyId: string): void {
    this.noted.set(keyId, this.clock.now());
    this.arm();
  }

  private arm(): void {
    if (this.cancelTimer || this.stopped) return;
    this.cancelTimer = this.clock.after(this.intervalMs, () => {
      this.cancelTimer = null;
      void this.flush();
    });
  }

  /** Writes what was noted, in one statement; a failed write keeps the notes for the next one. */
  async flush(): Promise<void> {
    if (this.noted.size === 0) return;
    const batch = this.noted;
    this.noted = new Map();
    try {
      await this.orm.em.fork().execute(
        `update api_keys k set last_used_at = t.at
           from unnest(?::uuid[], ?::timestamptz[]) as t(id, at)
          where k.id = t.id and (k.last_used_at is null or k.last_used_at < t.at)`,
        [[...batch.keys()], [...batch.values()].map((at) => new Date(at).toISOString())],
      );
    } catch (error) {
      this.logger.warn({ err: error, keys: batch.size }, 'could not record API key use; retried with the next flush');
      for (const [keyId, at] of batch) if (!this.noted.has(keyId)) this.noted.set(keyId, at);
      this.arm();
    }
  }

  /** Shutdown: the last notes are written, no timer is left behind. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = null;
    await this.flush();
  }
}
