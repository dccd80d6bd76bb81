import type { Node } from './cluster';
import type { TrackedRun } from './driver';
import type { ScenarioContext, ScenarioSettings } from './scenarios';

/** What every scenario does with its runs: split them in batches, start a batch at once, approve it. */
export function batches(settings: Pick<ScenarioSettings, 'runs' | 'batch'>): number[] {
  const sizes: number[] = [];
  for (let left = settings.runs; left > 0; left -= settings.batch) sizes.push(Math.min(settings.batch, left));
  return sizes;
}

/**
 * Starts a batch: `size` invoice runs (and `lookups` lookup runs) via `nodes` in turn, all
 * at once, so that every run exists before a failpoint can fire.
 */
export async function startBatch(ctx: ScenarioContext, nodes: Node[], batch: number, size: number, lookups: number): Promise<TrackedRun[]> {
  const started = await Promise.all([
    ...Array.from({ length: lookups }, (_, i) => ctx.driver.startLookupRun(nodes[i % nodes.length], batch)),
    ...Array.from({ length: size }, (_, i) => ctx.driver.startInvoiceRun(nodes[i % nodes.length], batch)),
  ]);
  return started.filter((run): run is TrackedRun => run !== null);
}

/** Approves the pending approvals of `runs` (one at a time), each via the next of `nodes`. */
export async function approveAll(ctx: ScenarioContext, nodes: Node[], runs: TrackedRun[]): Promise<void> {
  const invoices = runs.filter((r) => r.kind === 'invoice').map((r) => r.id);
  const approvals = await ctx.driver.waitForApprovals(nodes[0], invoices, 30_000);
  if (!approvals || !(await ctx.driver.waitParked(nodes[0], invoices, 30_000))) {
    throw new Error(`the approvals of batch ${runs[0]?.batch} did not all appear within 30 s`);
  }
  for (const [i, approval] of approvals.entries()) {
    const result = await ctx.driver.approve(nodes[i % nodes.length], approval.id);
    if (result !== 'approved') ctx.log(`  approval ${approval.id}: ${result}`);
  }
}
