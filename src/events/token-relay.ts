import type { Logger } from '../logger';
import type { RunEvents, TokenEvent } from '../runs/run-events';
import { MAX_BUS_MESSAGE_BYTES, type EventBus } from './event-bus';

/** Called when a run's text grew; the listener reads what it needs with `snapshot`. */
type TokenListener = () => void;

interface RunBuffer {
  orgId: string;
  /** Offset of `text`'s first character in the run's assistant text. */
  start: number;
  text: string;
  /** Deltas that arrived ahead of a gap, by offset, until the gap fills. */
  early: Map<number, TokenEvent>;
  listeners: Set<TokenListener>;
  touched: number;
}

const COALESCE_MS = 25;
/** Early deltas held for a gap before it is taken as lost (the listener reloads persisted text). */
const MAX_EARLY = 64;
const MAX_CHUNK_CHARS = 1500;
const IDLE_MS = 10 * 60_000;

/**
 * Model text deltas across nodes. The node streaming a run publishes a delta at once when
 * none went out in the last 25 ms, and coalesces the ones that follow it within that
 * window (never one database write per token); every node keeps
 * each live run's text since it started seeing it, so a subscriber that joins late can be
 * given the message so far and then the live deltas, without gaps or repeats (deltas are
 * placed by their offset in the run's assistant text).
 */
export class TokenRelay {
  private readonly runs = new Map<string, RunBuffer>();
  private readonly outbox = new Map<string, TokenEvent>();
  private flushTimer: NodeJS.Timeout | null = null;
  private started: Promise<void> | null = null;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly bus: EventBus,
    runEvents: RunEvents,
    private readonly logger: Logger,
  ) {
    runEvents.on('token', (event) => this.produce(event));
    runEvents.on('status', (event) => {
      if (event.status !== 'running') this.flush();
    });
    this.sweeper = setInterval(() => this.sweep(), 60_000).unref();
  }

  /** Ensures this node hears every node's tokens (and its own, through the bus). */
  async start(): Promise<void> {
    await (this.started ??= this.bus.subscribe('tokens', (message) => this.consume(message)).then(() => undefined));
  }

  /** The live text this node holds for a run (from `start`), for late joiners. */
  snapshot(runId: string): { start: number; text: string } | null {
    const run = this.runs.get(runId);
    return run ? { start: run.start, text: run.text } : null;
  }

  listen(runId: string, orgId: string, listener: TokenListener): () => void {
    const run = this.buffer(runId, orgId, null);
    run.listeners.add(listener);
    return () => run.listeners.delete(listener);
  }

  /** Live subscriptions on this node following a run's text (for tests and metrics). */
  listenerCount(runId: string): number {
    return this.runs.get(runId)?.listeners.size ?? 0;
  }

  stop(): void {
    clearInterval(this.sweeper);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flush();
  }

  private produce(event: TokenEvent): void {
    const pending = this.outbox.get(event.runId);
    if (pending && pending.offset + pending.text.length === event.offset && pending.text.length < MAX_CHUNK_CHARS) {
      pending.text += event.text;
    } else {
      if (pending) this.send(pending);
      this.outbox.set(event.runId, { ...event });
    }
    // Leading edge: the first delta after a quiet window goes out now; a burst after it
    // waits at most one window.
    if (!this.flushTimer) {
      this.flush();
      this.armFlush();
    }
  }

  private armFlush(): void {
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      if (this.outbox.size === 0) return;
      this.flush();
      this.armFlush();
    }, COALESCE_MS);
  }

  private flush(): void {
    for (const event of this.outbox.values()) this.send(event);
    this.outbox.clear();
  }

  private send(event: TokenEvent): void {
    const message = JSON.stringify(event);
    // Split what would not fit one NOTIFY payload.
    if (Buffer.byteLength(message) > MAX_BUS_MESSAGE_BYTES) {
      const half = Math.floor(event.text.length / 2);
      this.send({ ...event, text: event.text.slice(0, half) });
      this.send({ ...event, offset: event.offset + half, text: event.text.slice(half) });
      return;
    }
    this.bus.publish('tokens', message).catch((error: unknown) => this.logger.warn({ err: error }, 'could not publish tokens'));
  }

  private consume(message: string): void {
    let event: TokenEvent;
    try {
      event = JSON.parse(message) as TokenEvent;
    } catch {
      return;
    }
    const run = this.buffer(event.runId, event.orgId, event.offset);
    const end = run.start + run.text.length;
    if (event.offset > end) {
      if (run.text.length > 0 && run.early.size < MAX_EARLY) {
        // Ahead of a gap: hold it until the missing delta arrives.
        run.early.set(event.offset, event);
        return;
      }
      // This node started late (or the gap is lost): keep from here on.
      run.start = event.offset;
      run.text = event.text;
      run.early.clear();
    } else if (event.offset + event.text.length > end) {
      run.text += event.text.slice(end - event.offset);
    } else {
      return; // already have it
    }
    this.fillFromEarly(run);
    run.touched = Date.now();
    for (const listener of run.listeners) listener();
  }

  private fillFromEarly(run: RunBuffer): void {
    for (let progressed = true; progressed && run.early.size > 0; ) {
      progressed = false;
      const end = run.start + run.text.length;
      for (const [offset, event] of run.early) {
        if (offset > end) continue;
        run.early.delete(offset);
        if (offset + event.text.length > end) run.text += event.text.slice(end - offset);
        progressed = true;
      }
    }
  }

  private buffer(runId: string, orgId: string, start: number | null): RunBuffer {
    let run = this.runs.get(runId);
    if (!run) {
      run = { orgId, start: start ?? 0, text: '', early: new Map(), listeners: new Set(), touched: Date.now() };
      this.runs.set(runId, run);
    }
    return run;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [runId, run] of this.runs) {
      if (run.listeners.size === 0 && now - run.touched > IDLE_MS) this.runs.delete(runId);
    }
  }
}
