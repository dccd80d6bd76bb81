import { approveAll, batches, startBatch } from './batches';
import type { Fault } from './clients';
import type { TrackedRun } from './driver';
import { sleep } from './processes';
import type { ScenarioContext } from './scenarios';

/**
 * Uncertain outcomes (issue 27): no node dies, the vendor misbehaves after the request was
 * sent, on the catalog's non-idempotent action (invoice.send: a QuickBooks create, then an
 * email). Each batch of invoice runs meets its faults; once every run has answered, the
 * customer writes the same request again in each run and the expert approves it again. The
 * invariants (verify.ts) then say: a repeat of a disturbed call makes no second invoice (it found the first),
 * and no call told failed whose invoice exists.
 *
 * - vendor_timeout: every create is answered `timeoutMs + 1000` after it arrived (11 s
 *   against the nodes' 10 s by default), QuickBooks acting before it answers.
 * - vendor_5xx: one fault per run, in turn: a 502 or a 504 after QuickBooks created the
 *   invoice, the connection dropped after it did, a 503 on the email step, a 500 or a reset
 *   before it acted.
 */
export const UNCERTAIN_TITLES = {
  vendor_timeout: 'vendor answers after the timeout; the customer repeats',
  vendor_5xx: 'vendor 5xx / reset after the request was sent; the customer repeats',
} as const;

export type UncertainScenario = keyof typeof UNCERTAIN_TITLES;

/** The create (`POST …/invoice?requestid=…`), not the email (`…/invoice/<id>/send`) nor a query. */
const CREATE = '/invoice?';
const SEND = '/send';

const FIVE_XX: { fault: Fault; pathIncludes: string; what: string }[] = [
  { fault: { kind: 'after_effect', status: 502 }, pathIncludes: CREATE, what: '502 after the create' },
  { fault: { kind: 'after_effect', status: 504 }, pathIncludes: CREATE, what: '504 after the create' },
  { fault: { kind: 'after_effect', status: null }, pathIncludes: CREATE, what: 'reset after the create' },
  { fault: { kind: 'status', status: 503 }, pathIncludes: SEND, what: '503 on the email' },
  { fault: { kind: 'status', status: 500 }, pathIncludes: CREATE, what: '500 instead of the create' },
  { fault: { kind: 'reset' }, pathIncludes: CREATE, what: 'reset before the create' },
];

export async function uncertainScenario(ctx: ScenarioContext, name: UncertainScenario): Promise<void> {
  const { cluster, driver, settings, log, record } = ctx;
  const { control } = cluster;
  const node = await cluster.startNode('node-a');
  let next = 0;
  for (const [index, size] of batches(settings).entries()) {
    await control.clearFaults();
    const planned =
      name === 'vendor_timeout'
        ? [{ fault: { kind: 'slow', delayMs: settings.vendorTimeoutMs + 1000 } as Fault, pathIncludes: CREATE, what: 'slow create' }]
        : Array.from({ length: size }, () => FIVE_XX[next++ % FIVE_XX.length]);
    for (const { fault, pathIncludes } of planned) {
      await control.fault('nango', fault, { pathIncludes, times: name === 'vendor_timeout' ? size : 1 });
    }
    log(
      `  batch ${index + 1}: ${size} invoice run(s); ${planned.map((p) => p.what).join(', ')}${name === 'vendor_timeout' ? ` (${settings.vendorTimeoutMs + 1000} ms)` : ''}`,
    );
    const seenBefore = (await control.requests('nango')).length;
    const runs = await startBatch(ctx, [node], index, size, 0);
    await approveAll(ctx, [node], runs);
    await untilAnswered(ctx, runs, 'first request');
    await driver.recordReplies(node, runs);
    const met = (await control.requests('nango')).slice(seenBefore).filter((r) => r.fault !== null);
    record.notes.push(
      `batch ${index + 1}: faults met ${met.length} of ${name === 'vendor_timeout' ? size : planned.length} (${met.map((r) => `${r.fault} ${r.method} ${r.path.replace(/^.*\/company\/\d+/, '')}`).join('; ') || 'none'})`,
    );
    // The customer asks again in each run; the expert approves again: nothing new may be created.
    await control.clearFaults();
    for (const run of runs) await driver.repeatMessage(node, run);
    await approveAll(ctx, [node], runs);
    record.clockFrom = Date.now();
    await untilAnswered(ctx, runs, 'repeat');
    await driver.recordReplies(node, runs);
  }
}

/** Waits until every run of the batch has finished its turn. */
async function untilAnswered(ctx: ScenarioContext, runs: TrackedRun[], what: string): Promise<void> {
  const deadline = Date.now() + ctx.settings.terminalWithinMs;
  const ids = new Set(runs.map((r) => r.id));
  for (;;) {
    const statuses = await ctx.driver.runStatuses(ctx.driver.liveNode());
    const open = [...ids].filter((id) => !['completed', 'failed', 'cancelled'].includes(statuses.get(id) ?? ''));
    if (open.length === 0) return;
    if (Date.now() > deadline) throw new Error(`runs not answered (${what}) within ${ctx.settings.terminalWithinMs / 1000} s: ${open.join(', ')}`);
    await sleep(250);
  }
}
