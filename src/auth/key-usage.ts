import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../support/clock';
import type { Logger } from '../support/logger';

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
  private flushing: Promise<void> = Promise.resolve();

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

  /**
   * Writes what was noted, in one statement, after any write still running (so awaiting it
   * means every note made before the call is written); a failed write keeps its notes.
   */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.noted.size === 0) return;
    const batch = this.noted;
    this.noted = new Map();
    try {
      // One JSON parameter: the ORM would spread an array parameter into a list.
      const rows = JSON.stringify([...batch].map(([id, at]) => ({ id, at: new Date(at).toISOString() })));
      await this.orm.em.fork().execute(
        `update api_keys k set last_used_at = t.at
           from jsonb_to_recordset(?::jsonb) as t(id uuid, at timestamptz)
          where k.id = t.id and (k.last_used_at is null or k.last_used_at < t.at)`,
        [rows],
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
