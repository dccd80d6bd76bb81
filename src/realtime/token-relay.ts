import { randomUUID } from 'node:crypto';
import type { Logger } from '../support/logger';
import type { RunEvents, TokenEvent } from '../runs/run-events';
import { MAX_BUS_MESSAGE_BYTES, type EventBus } from './event-bus';

/** Called when a run's text grew or was cut; the listener reads what it needs with `snapshot` and its follower's `takeRetraction`. */
type TokenListener = () => void;

/** One listener of a run's text, and the lowest offset its text was cut at since it last looked. */
interface Follower {
  notify: TokenListener;
  retractedFrom: number | null;
}

/** A listener's hold on a run's text. */
export interface TokenFollow {
  /** The lowest offset the run's text was cut at (a retraction) since the last call; null if none. */
  takeRetraction(): number | null;
  stop(): void;
}

interface RunBuffer {
  orgId: string;
  /** Offset of `text`'s first character in the run's assistant text. */
  start: number;
  text: string;
  /** Deltas that arrived ahead of a gap, by offset, until the gap fills. */
  early: Map<number, TokenEvent>;
  listeners: Set<Follower>;
  /** Cuts applied so far: between two cuts the text only grows, so offset and length name a piece of it. */
  cuts: number;
  touched: number;
}

/** At most one publish per run in this window; a delta waits at most this long. */
const COALESCE_MS = 16;
/** Early deltas held for a gap before it is taken as lost (the listener reloads persisted text). */
const MAX_EARLY = 64;
const MAX_CHUNK_CHARS = 1500;
const IDLE_MS = 10 * 60_000;

/**
 * Model text deltas across nodes. The node streaming a run publishes a delta at once when
 * that run published nothing in the last 16 ms; deltas that come faster are coalesced
 * until the window ends (never one database write per token); every node keeps
 * each live run's text since it started seeing it, so a subscriber that joins late can be
 * given the message so far and then the live deltas, without gaps or repeats (deltas are
 * placed by their offset in the run's assistant text). A retraction (`retract`: the text from
 * its offset on is discarded, see TokenEvent) travels in the same ordered stream: each node
 * cuts its buffer there and tells its listeners. The node streaming a run applies its own
 * deltas at once, as it publishes them (its subscribers wait for no bus round trip), and skips
 * its own messages when the bus brings them back (tagged with `node`).
 */
export class TokenRelay {
  private readonly runs = new Map<string, RunBuffer>();
  /** Per streaming run on this node: text not yet published, when it last published, its window timer. */
  private readonly outbox = new Map<string, { pending: TokenEvent | null; lastSent: number; timer: NodeJS.Timeout | null }>();
  private started: Promise<void> | null = null;
  private readonly sweeper: NodeJS.Timeout;
  /** Tags this node's messages on the bus: it applied them when it sent them. */
  private readonly node = randomUUID();

  constructor(
    private readonly bus: EventBus,
    runEvents: RunEvents,
    private readonly logger: Logger,
  ) {
    runEvents.on('token', (event) => this.produce(event));
    runEvents.on('status', (event) => {
      if (event.status === 'running') return;
      this.flushRun(event.runId);
      this.outbox.delete(event.runId);
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

  /** How often this node cut the run's text (retractions): with offset and length, it names a piece of text. */
  generation(runId: string): number {
    return this.runs.get(runId)?.cuts ?? 0;
  }

  listen(runId: string, orgId: string, listener: TokenListener): TokenFollow {
    const run = this.buffer(runId, orgId, null);
    const follower: Follower = { notify: listener, retractedFrom: null };
    run.listeners.add(follower);
    return {
      takeRetraction: () => {
        const offset = follower.retractedFrom;
        follower.retractedFrom = null;
        return offset;
      },
      stop: () => void run.listeners.delete(follower),
    };
  }

  /** Live subscriptions on this node following a run's text (for tests and metrics). */
  listenerCount(runId: string): number {
    return this.runs.get(runId)?.listeners.size ?? 0;
  }

  stop(): void {
    clearInterval(this.sweeper);
    for (const runId of [...this.outbox.keys()]) this.flushRun(runId);
    this.outbox.clear();
  }

  private produce(event: TokenEvent): void {
    let run = this.outbox.get(event.runId);
    if (!run) {
      run = { pending: null, lastSent: -Infinity, timer: null };
      this.outbox.set(event.runId, run);
    }
    const pending = run.pending;
    if (pending && !event.retract && pending.offset + pending.text.length === event.offset && pending.text.length < MAX_CHUNK_CHARS) {
      pending.text += event.text;
    } else {
      if (pending) this.send(pending);
      run.pending = { ...event };
    }
    if (run.timer) return; // published when the window ends
    const wait = run.lastSent + COALESCE_MS - performance.now();
    if (wait <= 0) {
      this.flushRun(event.runId);
      return;
    }
    run.timer = setTimeout(() => this.flushRun(event.runId), wait);
  }

  private flushRun(runId: string): void {
    const run = this.outbox.get(runId);
    if (!run) return;
    if (run.timer) clearTimeout(run.timer);
    run.timer = null;
    if (!run.pending) return;
    this.send(run.pending);
    run.pending = null;
    run.lastSent = performance.now();
  }

  /** Applied here at once, then published for the other nodes. */
  private send(event: TokenEvent): void {
    this.apply(event);
    this.publish(event);
  }

  private publish(event: TokenEvent): void {
    const message = JSON.stringify({ ...event, node: this.node });
    // Split what would not fit one NOTIFY payload.
    if (Buffer.byteLength(message) > MAX_BUS_MESSAGE_BYTES) {
      const half = Math.floor(event.text.length / 2);
      this.publish({ ...event, text: event.text.slice(0, half) });
      const { retract: _cutByTheFirstHalf, ...rest } = event;
      this.publish({ ...rest, offset: event.offset + half, text: event.text.slice(half) });
      return;
    }
    this.bus.publish('tokens', message).catch((error: unknown) => this.logger.warn({ err: error }, 'could not publish tokens'));
  }

  private consume(message: string): void {
    let event: TokenEvent & { node?: string };
    try {
      event = JSON.parse(message) as TokenEvent & { node?: string };
    } catch {
      return;
    }
    if (event.node === this.node) return; // applied when sent
    this.apply(event);
  }

  /** Places a delta (or a retraction) in the run's text and wakes its listeners. */
  private apply(event: TokenEvent): void {
    const run = this.buffer(event.runId, event.orgId, event.offset);
    const cut = event.retract === true && this.cut(run, event.offset);
    if (event.text.length === 0) {
      if (cut) this.notify(run);
      return;
    }
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
      if (cut) this.notify(run);
      return; // already have it
    }
    this.fillFromEarly(run);
    this.notify(run);
  }

  private notify(run: RunBuffer): void {
    run.touched = Date.now();
    for (const listener of run.listeners) listener.notify();
  }

  /** Discards the run's text from `offset` on (and deltas held for after it); true when text was cut. */
  private cut(run: RunBuffer, offset: number): boolean {
    for (const at of run.early.keys()) if (at >= offset) run.early.delete(at);
    if (offset >= run.start + run.text.length) return false;
    if (offset <= run.start) {
      run.start = offset;
      run.text = '';
    } else {
      run.text = run.text.slice(0, offset - run.start);
    }
    run.cuts += 1;
    for (const follower of run.listeners) follower.retractedFrom = Math.min(follower.retractedFrom ?? offset, offset);
    return true;
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
      run = { orgId, start: start ?? 0, text: '', early: new Map(), listeners: new Set(), touched: Date.now(), cuts: 0 };
      this.runs.set(runId, run);
    }
    return run;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [runId, run] of this.outbox) {
      if (!run.pending && !run.timer && performance.now() - run.lastSent > IDLE_MS) this.outbox.delete(runId);
    }
    for (const [runId, run] of this.runs) {
      if (run.listeners.size === 0 && now - run.touched > IDLE_MS) this.runs.delete(runId);
    }
  }
}
