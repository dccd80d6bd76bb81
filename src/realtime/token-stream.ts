import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { isUuid } from '../db/ids';
import { findRun } from '../runs/run-query.service';
import { assistantText, loadMessages } from '../runs/run-messages';
import { realtimeOf } from './ledger-stream';
import { recheckAccess } from './subscription-access';
import { cancellable } from './cancellable';
import type { MikroORM } from '@mikro-orm/postgresql';

declare module '../graphql/context' {
  interface RequestServices {
    orm: MikroORM;
  }
}

export interface TokenDelta {
  runId: string;
  offset: string;
  text: string;
  /** Set when the subscriber's text from this offset on was discarded: cut there, then add `text` (at `offset`, equal to it). */
  retractFrom: string | null;
  /** The relay's cuts of the run's text when this was read (not in the schema): subscription groups share a delta only within one. */
  generation: number;
}

/** How often a subscriber missing text this node never saw re-reads the persisted messages. */
const RELOAD_MS = 500;

/**
 * A run's model text as a subscription: what exists after `afterOffset` (persisted
 * messages, then what this node's relay holds of the one streaming), then whatever the
 * relay adds. Each delta starts exactly where the previous one ended: text is never
 * skipped, repeated or reordered. The relay only signals that text grew, so a slow client
 * is not queued deltas: it gets everything new in its next, larger delta. Text the run
 * discarded after it was sent (a failed stream's attempt, a refused turn) is retracted: the
 * next item carries `retractFrom` and continues from there.
 */
export function tokenStream(ctx: RequestContext, runId: string, afterOffset: number | null): AsyncIterableIterator<TokenDelta> {
  const realtime = realtimeOf(ctx);
  const wake = new Wakeup();

  async function* stream() {
    const caller = requireCaller(ctx);
    // The run's visibility, the key and the stored text are read at once (one round trip's
    // wait, not three); nothing is sent before the first two pass. Reading the stored text
    // before the listener is attached loses nothing: the relay keeps every run's live text
    // whether anyone listens or not, and the snapshot below is taken after the listener.
    // Read within the caller's org only: another org's run is never read, not even to be dropped.
    const stored = isUuid(runId) ? loadMessages(ctx.services.orm.em.fork(), runId, caller.orgId) : Promise.resolve([]);
    stored.catch(() => undefined); // awaited below, unless the run is not the caller's
    const [found, access] = await Promise.allSettled([findRun(ctx.services.orm.em.fork(), caller, runId), recheckAccess(ctx)]);
    // In the order they were checked one after the other: an unknown run first.
    if (found.status === 'rejected') throw found.reason;
    if (access.status === 'rejected') throw access.reason;
    const run = found.value;
    const follow = realtime.tokens.listen(run.id, run.orgId, () => wake.notify());
    try {
      let persisted = assistantText(await stored);
      let loadedAt = Date.now();
      let sent = afterOffset ?? 0;
      while (!wake.closed) {
        // Only text this subscriber was sent needs retracting (persisted text is never discarded).
        const cut = follow.takeRetraction();
        const retractFrom = cut !== null && Math.max(cut, persisted.length) < sent ? Math.max(cut, persisted.length) : null;
        if (retractFrom !== null) sent = retractFrom;
        let text = persisted.length > sent ? persisted.slice(sent) : '';
        const end = sent + text.length;
        const live = realtime.tokens.snapshot(run.id);
        const generation = realtime.tokens.generation(run.id);
        if (live && live.start <= end && live.start + live.text.length > end) text += live.text.slice(end - live.start);
        if (text.length > 0 || retractFrom !== null) {
          await recheckAccess(ctx);
          yield { runId: run.id, offset: String(sent), text, retractFrom: retractFrom === null ? null : String(retractFrom), generation };
          sent += text.length;
          continue;
        }
        if (live && live.start > end && Date.now() - loadedAt >= RELOAD_MS) {
          // This node joined the stream late: the text before `live.start` is persisted once the message ends.
          persisted = assistantText(await loadMessages(ctx.services.orm.em.fork(), run.id));
          loadedAt = Date.now();
          if (persisted.length > sent) continue;
        }
        // While text is missing, look again after a while even if no delta comes.
        await wake.wait(live && live.start > end ? RELOAD_MS : null);
      }
    } finally {
      follow.stop();
      wake.close();
    }
  }

  return cancellable(stream(), () => wake.close());
}

/** A flag a producer raises and a single consumer waits for (many raises, one wake-up). */
class Wakeup {
  private raised = false;
  private waiter: (() => void) | null = null;
  closed = false;

  notify(): void {
    this.raised = true;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }

  close(): void {
    this.closed = true;
    this.notify();
  }

  async wait(timeoutMs: number | null): Promise<void> {
    if (!this.raised) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        if (timeoutMs !== null) timer = setTimeout(() => this.notify(), timeoutMs);
      });
      clearTimeout(timer);
    }
    this.raised = false;
  }
}
