import { toolCallIdOfRequestId } from './clients';
import type { Cluster, Node } from './cluster';
import { TERMINAL_RUN, type Driver, type TrackedRun } from './driver';
import { sleep } from './processes';
import { approveAll, batches, startBatch } from './batches';
import { UNCERTAIN_TITLES, uncertainScenario } from './uncertain';
import { storeScenario, type OutageRecord, type ScenarioStores } from './store-scenarios';

/**
 * The kill points. Each scenario drives invoice runs (high risk: an expert approves each)
 * and, where it says so, order-lookup runs (idempotent, no approval) in batches; each
 * batch ends with a kill of the node, which is restarted under the same name (except in
 * two_nodes, where node-b takes over). What the scenario did is recorded for verify.ts.
 */
export const SCENARIOS = [
  'after_approval',
  'vendor_call',
  'after_vendor_response',
  'during_model_stream',
  'outcome_unknown',
  'two_nodes',
  // No node dies: the vendor's answer is lost or late (uncertain.ts).
  'vendor_timeout',
  'vendor_5xx',
  'postgres_crash',
  'redis_loss',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export const SCENARIO_TITLES: Record<ScenarioName, string> = {
  after_approval: 'after_approval (failpoint)',
  vendor_call: 'SIGKILL during the vendor call',
  after_vendor_response: 'after_vendor_response (failpoint)',
  during_model_stream: 'during_model_stream (failpoint)',
  outcome_unknown: 'outcome unknown (SIGKILL at the vendor, lookups 503)',
  two_nodes: 'two nodes, node-a SIGKILLed at the vendor',
  ...UNCERTAIN_TITLES,
  postgres_crash: 'PostgreSQL crashed (pg_ctl stop -m immediate) under two nodes, restarted after 8–20 s',
  redis_loss: 'Redis (bus and rate limits) SIGKILLed under two nodes, restarted after 4–8 s',
};

export interface ScenarioSettings {
  /** Invoice runs in the scenario. */
  runs: number;
  /** Invoice runs per kill. */
  batch: number;
  /** Order-lookup runs per batch (vendor_call, after_vendor_response, outcome_unknown, two_nodes). */
  lookups: number;
  /** How long the sandbox holds a slowed vendor request. */
  slowMs: number;
  /** Every run must be terminal this long after the last (re)start or kill. */
  terminalWithinMs: number;
  /** VENDOR_TIMEOUT_MS of the nodes of vendor_timeout and vendor_5xx. */
  vendorTimeoutMs: number;
  random: () => number;
}

export interface KillRecord {
  node: string;
  incarnation: number;
  /** e.g. `failpoint after_approval:2` or `SIGKILL by the harness`. */
  how: string;
  /** ms since the scenario started. */
  atMs: number;
  exit: string;
  /** invoice.send calls whose QuickBooks write (create or send) the sandbox held at the kill. */
  heldAtVendor: string[];
  /** Order lookups (Shopify requests) the sandbox held at the kill. */
  lookupsHeld: number;
}

export interface ScenarioRecord {
  name: ScenarioName;
  startedAt: number;
  kills: KillRecord[];
  /** Only outcome_unknown may end calls VENDOR_OUTCOME_UNKNOWN. */
  expectUnknown: boolean;
  /** A scenario that kills no node (the vendor misbehaves instead) says so. */
  expectKills: boolean;
  /** Where "terminal within" counts from when no restart or kill came later (the last approval of a scenario without kills). */
  clockFrom?: number;
  notes: string[];
  /** ms from the last (re)start or kill to every run terminal; null: not within the limit. */
  terminalAfterMs: number | null;
  clockStart: number;
  /** When the harness may read the vendor's effects: no slowed request is still held. */
  quietAfter: number;
  /** Store outages (postgres_crash, redis_loss): no node is killed there. */
  outages: OutageRecord[];
  /** When the store came back the last time: the 60-second clock starts there. */
  storeBackAt?: number;
}

export interface ScenarioContext {
  cluster: Cluster;
  driver: Driver;
  settings: ScenarioSettings;
  record: ScenarioRecord;
  log: (line: string) => void;
  /** The private PostgreSQL or Redis of a store scenario. */
  stores?: ScenarioStores | null;
}

const NODE_A = 'node-a';
const NODE_B = 'node-b';

/** Node environment a scenario needs beyond the defaults. */
export function scenarioNodeEnv(name: ScenarioName, vendorTimeoutMs: number): Record<string, string> {
  // The lookups made to fail on purpose would open the nango breaker (5 failures in a row), and
  // the next batch's invoices would fail CIRCUIT_OPEN without reaching the vendor. So would the
  // faults of vendor_timeout and vendor_5xx, which every run of a batch meets at once.
  if (name === 'outcome_unknown') return { VENDOR_BREAKER_THRESHOLD: '1000' };
  if (name === 'vendor_timeout' || name === 'vendor_5xx') return { VENDOR_BREAKER_THRESHOLD: '1000', VENDOR_TIMEOUT_MS: String(vendorTimeoutMs) };
  return {};
}

export async function runScenario(ctx: ScenarioContext): Promise<void> {
  switch (ctx.record.name) {
    case 'after_approval':
    case 'after_vendor_response':
    case 'during_model_stream':
      return failpointScenario(ctx, ctx.record.name);
    case 'vendor_call':
      return vendorCallScenario(ctx, false);
    case 'outcome_unknown':
      return vendorCallScenario(ctx, true);
    case 'two_nodes':
      return twoNodesScenario(ctx);
    case 'vendor_timeout':
    case 'vendor_5xx':
      return uncertainScenario(ctx, ctx.record.name);
    case 'postgres_crash':
    case 'redis_loss':
      return storeScenario(ctx, ctx.record.name);
  }
}

const between = (random: () => number, low: number, high: number) => low + Math.floor(random() * (high - low + 1));

/** The failpoint of a batch: where in the batch the node kills itself. */
function failpointFor(name: ScenarioName, batchIndex: number, size: number, lookups: number, random: () => number): string {
  switch (name) {
    case 'after_approval':
      return `after_approval:${between(random, 1, size)}`;
    case 'after_vendor_response':
      // Lookups answer first (they need no approval), then the approved invoices.
      return `after_vendor_response:${between(random, 1, size + lookups)}`;
    default: {
      // Three words per text delta: a first turn ("Let me take care of that for you.") is 3 deltas,
      // so even batches die in a first turn, odd ones in a reply after the invoice.
      const firstTurns = 3 * size;
      return batchIndex % 2 === 0
        ? `during_model_stream:${between(random, 1, firstTurns)}`
        : `during_model_stream:${between(random, firstTurns + 1, 2 * firstTurns)}`;
    }
  }
}

async function statusesOf(driver: Driver, ids: string[]): Promise<Map<string, string>> {
  const all = await driver.runStatuses(driver.liveNode());
  return new Map(ids.map((id) => [id, all.get(id) ?? 'missing']));
}

const allTerminal = async (driver: Driver, runs: TrackedRun[]) =>
  [
    ...(
      await statusesOf(
        driver,
        runs.map((r) => r.id),
      )
    ).values(),
  ].every((s) => TERMINAL_RUN.has(s));

function recordKill(
  ctx: ScenarioContext,
  node: Node,
  how: string,
  exit: { code: number | null; signal: string | null },
  held: string[] = [],
  lookupsHeld = 0,
): void {
  const kill: KillRecord = {
    node: node.name,
    incarnation: node.incarnation,
    how,
    atMs: Date.now() - ctx.record.startedAt,
    exit: exit.signal ?? `code ${exit.code}`,
    heldAtVendor: held,
    lookupsHeld,
  };
  ctx.record.kills.push(kill);
  ctx.record.quietAfter = Math.max(ctx.record.quietAfter, Date.now() + ctx.settings.slowMs + 500);
  ctx.log(
    `  killed ${node.name}#${node.incarnation} (${how}; ${kill.exit})${held.length ? `; held at the vendor: ${held.length} invoice write(s)` : ''}${lookupsHeld ? `, ${lookupsHeld} lookup(s)` : ''}`,
  );
}

/**
 * after_approval, after_vendor_response, during_model_stream: node-a runs with the batch's
 * failpoint and dies by it; it is restarted at once with the next batch's failpoint (none
 * after the last batch). A restarted node may reach its failpoint while it recovers the
 * previous batch's runs, even before it is ready: that is a kill too, and it is restarted
 * again (after two such deaths in a row, without a failpoint for the batch).
 */
async function failpointScenario(ctx: ScenarioContext, name: ScenarioName): Promise<void> {
  const { cluster, driver, settings, log } = ctx;
  const sizes = batches(settings);
  const lookups = name === 'after_vendor_response' ? settings.lookups : 0;
  const failpoints = sizes.map((size, index) => failpointFor(name, index, size, lookups, settings.random));
  let node = await cluster.startNode(NODE_A, failpoints[0]);
  let index = 0;
  let deathsBeforeBatch = 0;
  while (index < sizes.length) {
    if (!node.child.alive()) {
      // The failpoint fired while the node recovered earlier work, before this batch started.
      recordKill(ctx, node, `failpoint ${node.failpoints} (while recovering, before batch ${index + 1})`, await node.child.exited);
      deathsBeforeBatch += 1;
      node = await cluster.startNode(NODE_A, deathsBeforeBatch >= 2 ? null : failpoints[index]);
      continue;
    }
    deathsBeforeBatch = 0;
    const size = sizes[index];
    const failpoint = node.failpoints;
    log(
      `  batch ${index + 1}/${sizes.length}: ${size} invoice run(s)${lookups ? ` + ${lookups} lookup(s)` : ''}, TOOLGATE_FAILPOINTS=${failpoint ?? '(none)'}`,
    );
    const runs = await startBatch(ctx, [node], index, size, lookups);
    // The expert approves once the batch's requests are all queued (a node may die meanwhile: the drive notices).
    await driver.waitParked(
      node,
      runs.filter((r) => r.kind === 'invoice').map((r) => r.id),
      30_000,
    );
    const outcome = await driver.drive({
      deadline: Date.now() + 45_000,
      approve: true,
      watch: node,
      done: () => allTerminal(driver, runs),
    });
    if (outcome === 'died') {
      recordKill(ctx, node, `failpoint ${failpoint}`, await node.child.exited);
    } else {
      // The failpoint was not reached (fewer hits than planned): a plain SIGKILL ends the batch instead.
      ctx.record.notes.push(`batch ${index + 1}: failpoint ${failpoint ?? '(none)'} not reached (${outcome}); SIGKILL instead`);
      recordKill(ctx, node, `SIGKILL by the harness (failpoint ${failpoint ?? '(none)'} not reached)`, await node.child.kill());
    }
    index += 1;
    node = await cluster.startNode(NODE_A, index < sizes.length ? failpoints[index] : null);
  }
}

/**
 * Waits until the sandbox holds a slowed QuickBooks write (invoice create or send) of one
 * of `callIds`, lets more arrive for a moment (well inside the hold), then SIGKILLs `node`.
 */
async function killAtVendor(ctx: ScenarioContext, node: Node, callIds: () => Set<string>, baseline: number, holdMs: number): Promise<boolean> {
  const { control } = ctx.cluster;
  // Requests recorded before the batch (index < baseline) were answered long ago.
  const firstSeen = new Map<number, number>(Array.from({ length: baseline }, (_, i) => [i, 0]));
  const deadline = Date.now() + 30_000;
  const window = Math.min(400, Math.floor(holdMs / 3));
  let firstAt: number | null = null;
  for (;;) {
    if (!node.child.alive()) {
      ctx.record.notes.push(`${node.name} exited before the kill at the vendor`);
      return false;
    }
    const requests = await control.requests();
    const now = Date.now();
    for (let i = 0; i < requests.length; i++) if (!firstSeen.has(i)) firstSeen.set(i, now);
    const ids = callIds();
    const held = requests.filter(
      (r) => r.vendor === 'nango' && r.method === 'POST' && r.fault === 'slow' && ids.has(toolCallIdOfRequestId(r.requestId) ?? ''),
    );
    if (held.length > 0 && firstAt === null) firstAt = now;
    if (firstAt !== null && now - firstAt >= window) {
      const exit = await node.child.kill();
      // Held: seen within the hold before the kill (a slowed request is answered slowMs after it arrived).
      const heldIds = new Set<string>();
      let lookupsHeld = 0;
      requests.forEach((r, i) => {
        if (r.fault !== 'slow' || now - firstSeen.get(i)! > holdMs - 200) return;
        if (r.vendor === 'shopify') lookupsHeld += 1;
        const id = toolCallIdOfRequestId(r.requestId);
        if (r.vendor === 'nango' && id && ids.has(id)) heldIds.add(id);
      });
      recordKill(ctx, node, 'SIGKILL by the harness, QuickBooks write held', exit, [...heldIds], lookupsHeld);
      return true;
    }
    if (now > deadline) {
      ctx.record.notes.push(`no invoice write reached the vendor within 30 s: ${node.name} not killed at the vendor`);
      return false;
    }
    await sleep(50);
  }
}

/** The tool call ids of the invoice calls of `runs` (from their approvals). */
function invoiceCallIds(ctx: ScenarioContext, runs: TrackedRun[]): () => Set<string> {
  const runIds = new Set(runs.map((r) => r.id));
  const ids = new Set<string>();
  let busy = false;
  let last = 0;
  return () => {
    // At most every 300 ms: the toolCalls query is charged to the client key's rate limit.
    if (!busy && Date.now() - last >= 300) {
      busy = true;
      last = Date.now();
      void (async () => {
        try {
          for (const call of await ctx.driver.toolCalls(ctx.driver.liveNode())) {
            if (runIds.has(call.runId) && call.toolName === 'invoice') ids.add(call.id);
          }
        } catch {
          // the node is gone: the ids known so far stand
        } finally {
          busy = false;
        }
      })();
    }
    return ids;
  };
}

/**
 * vendor_call and outcome_unknown: QuickBooks writes and Shopify reads are held slowMs by
 * the sandbox; node-a is SIGKILLed while they are held. For outcome_unknown the sandbox then
 * answers every invoice query (the reconciler's lookup) 503 until the interrupted calls settle.
 */
async function vendorCallScenario(ctx: ScenarioContext, unknown: boolean): Promise<void> {
  const { cluster, driver, settings, log } = ctx;
  const { control } = cluster;
  const sizes = batches(settings);
  let node = await cluster.startNode(NODE_A);
  for (const [index, size] of sizes.entries()) {
    log(`  batch ${index + 1}/${sizes.length}: ${size} invoice run(s) + ${settings.lookups} lookup(s), vendor held ${settings.slowMs} ms`);
    await control.clearFaults();
    await control.fault('nango', { kind: 'slow', delayMs: settings.slowMs }, { pathIncludes: '/invoice', times: size });
    if (settings.lookups)
      await control.fault('shopify', { kind: 'slow', delayMs: settings.slowMs }, { pathIncludes: 'graphql.json', times: settings.lookups });
    const baseline = (await control.requests()).length;
    const runs = await startBatch(ctx, [node], index, size, 0);
    const approvalsReady = await driver.waitForApprovals(
      node,
      runs.map((r) => r.id),
      30_000,
    );
    if (!approvalsReady) throw new Error(`the approvals of batch ${index + 1} did not all appear within 30 s`);
    for (let i = 0; i < settings.lookups; i++) {
      const run = await driver.startLookupRun(node, index);
      if (run) runs.push(run);
    }
    await approveAll(ctx, [node], runs);
    const calls = invoiceCallIds(ctx, runs);
    calls();
    const killed = await killAtVendor(ctx, node, calls, baseline, settings.slowMs);
    if (!killed && node.child.alive()) await node.child.kill();
    await control.clearFaults();
    const held = ctx.record.kills.at(-1)?.heldAtVendor ?? [];
    if (unknown) {
      await control.fault('nango', { kind: 'status', status: 503 }, { pathIncludes: 'select * from Invoice', times: 100_000 });
    }
    node = await cluster.startNode(NODE_A);
    if (unknown) {
      // Keep the lookups failing until every call the kill interrupted has settled.
      const settledBy = Date.now() + 30_000;
      for (;;) {
        const interrupted = new Set((await driver.ledgerEvents(node, 'tool_call.interrupted').catch(() => [])).map((e) => e.resourceId));
        const open = (await driver.toolCalls(node).catch(() => [] as { id: string; status: string }[])).filter(
          (c) => (held.includes(c.id) || interrupted.has(c.id)) && (c.status === 'running' || c.status === 'approved'),
        );
        const heldSeen = held.every((id) => interrupted.has(id));
        if (open.length === 0 && heldSeen) break;
        if (Date.now() > settledBy) {
          ctx.record.notes.push(
            `batch ${index + 1}: interrupted calls not settled within 30 s of the restart (${open.map((c) => c.id).join(', ') || 'held calls not interrupted'})`,
          );
          break;
        }
        await sleep(200);
      }
      await control.clearFaults();
    }
  }
}

/**
 * Two nodes on one database and one sandbox process: runs are started, and approved,
 * through both APIs; node-a is SIGKILLed while QuickBooks writes are held and is not
 * restarted: node-b must find it dead (NODE_DEAD_AFTER_MS), take over its job locks and
 * calls, and finish everything.
 */
async function twoNodesScenario(ctx: ScenarioContext): Promise<void> {
  const { cluster, driver, settings, log } = ctx;
  const { control } = cluster;
  const a = await cluster.startNode(NODE_A);
  const b = await cluster.startNode(NODE_B);
  const size = settings.runs;
  // As long as in vendor_call: longer than NODE_DEAD_AFTER_MS, so node-b may find node-a dead
  // while the vendor still holds node-a's writes.
  const holdMs = settings.slowMs;
  log(`  ${size} invoice run(s) + ${settings.lookups} lookup(s) through node-a and node-b, vendor held ${holdMs} ms`);
  await control.clearFaults();
  await control.fault('nango', { kind: 'slow', delayMs: holdMs }, { pathIncludes: '/invoice', times: size });
  if (settings.lookups) await control.fault('shopify', { kind: 'slow', delayMs: holdMs }, { pathIncludes: 'graphql.json', times: settings.lookups });
  const baseline = (await control.requests()).length;
  const runs = await startBatch(ctx, [a, b], 0, size, 0);
  if (
    !(await driver.waitForApprovals(
      b,
      runs.map((r) => r.id),
      30_000,
    ))
  )
    throw new Error('the approvals did not all appear within 30 s');
  for (let i = 0; i < settings.lookups; i++) {
    const run = await driver.startLookupRun(i % 2 === 0 ? a : b, 0);
    if (run) runs.push(run);
  }
  await approveAll(ctx, [a, b], runs);
  const calls = invoiceCallIds(ctx, runs);
  calls();
  if (!(await killAtVendor(ctx, a, calls, baseline, holdMs)) && a.child.alive()) {
    const exit = await a.child.kill();
    recordKill(ctx, a, 'SIGKILL by the harness (no write held)', exit);
  }
  await control.clearFaults();
  // node-a stays dead: settle() drives the rest through node-b.
}

/**
 * After the kills: every run must end within terminalWithinMs of the last (re)start or
 * kill; approvals still pending are approved meanwhile (through any live node).
 */
export async function settle(ctx: ScenarioContext): Promise<void> {
  const { cluster, driver, settings, record } = ctx;
  const lastKill = record.kills.length ? record.startedAt + record.kills.at(-1)!.atMs : 0;
  record.clockStart = Math.max(cluster.lastStartAt, lastKill, record.clockFrom ?? 0, record.storeBackAt ?? 0);
  const outcome = await driver.drive({
    deadline: record.clockStart + settings.terminalWithinMs,
    approve: true,
    done: () => driver.allTerminal(driver.liveNode()),
  });
  record.terminalAfterMs = outcome === 'done' ? Date.now() - record.clockStart : null;
  // Effects are read once the sandbox holds no slowed request any more.
  const wait = record.quietAfter - Date.now();
  if (wait > 0) await sleep(wait);
}
