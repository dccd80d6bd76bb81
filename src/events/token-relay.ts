import type { Logger } from '../logger';
import type { RunEvents, TokenEvent } from '../runs/run-events';
import { MAX_BUS_MESSAGE_BYTES, type EventBus } from './event-bus';

type TokenListener = (event: TokenEvent) => void;

interface RunBuffer {
  orgId: string;
  /** Offset of `text`'s first character in the run's assistant text. */
  start: number;
  text: string;
  listeners: Set<TokenListener>;
  touched: number;
}

const COALESCE_MS = 25;
const MAX_CHUNK_CHARS = 1500;
const IDLE_MS = 10 * 60_000;

/**
 * Model text deltas across nodes. The node streaming a run coalesces its deltas for at
 * most 25 ms and publishes them (never one database write per token); every node keeps
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
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      this.flush();
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
      // This node missed part of the run (it started late): keep from here on.
      run.start = event.offset;
      run.text = event.text;
    } else if (event.offset + event.text.length > end) {
      run.text += event.text.slice(end - event.offset);
    } else {
      return; // already have it
    }
    run.touched = Date.now();
    const fresh = { ...event, offset: Math.max(event.offset, end), text: event.text.slice(Math.max(0, end - event.offset)) };
    for (const listener of run.listeners) listener(fresh);
  }

  private buffer(runId: string, orgId: string, start: number | null): RunBuffer {
    let run = this.runs.get(runId);
    if (!run) {
      run = { orgId, start: start ?? 0, text: '', listeners: new Set(), touched: Date.now() };
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
