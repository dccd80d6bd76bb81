import { onServer, type DatabaseServer } from './database';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres';
import { startPrivateRedis, type PrivateRedis } from './private-redis';
import { graphql, GraphqlError } from './clients';
import type { Node } from './cluster';
import { TERMINAL_RUN, type TrackedRun } from './driver';
import { sleep } from './processes';
import type { ScenarioContext } from './scenarios';

/**
 * The store outages (issue 27): no process is killed; the store under the nodes goes away
 * and comes back. postgres_crash stops a PostgreSQL server of the harness's own with
 * `pg_ctl stop -m immediate` (a crash: every backend killed, crash recovery at the next
 * start) while run steps execute, and starts it again after 8–20 s; redis_loss SIGKILLs a
 * redis-server of its own (the nodes' event bus and rate limit store) and starts it again
 * after 4–8 s. Two nodes each: node-a without in-process steps (LOCAL_STEP_CONCURRENCY=0,
 * every step on graphile-worker), node-b with them. What must hold besides the usual
 * invariants: no node exits, each answers throughout (503 SERVICE_UNAVAILABLE while its
 * database is gone, 200 while only Redis is), and every run is terminal within 60 s of the
 * store's return.
 */
export type StoreScenario = 'postgres_crash' | 'redis_loss';

export interface OutageRecord {
  store: 'postgresql' | 'redis';
  /** ms since the scenario started. */
  atMs: number;
  durationMs: number;
  /** Probes of each node during the outage (/readyz and a GraphQL request) that got an answer, and those that did not. */
  answered: number;
  unanswered: string[];
  /** ms from the store's return to every run of the batch terminal; null: not within the limit. */
  terminalAfterMs: number | null;
  /** Nodes that exited during the outage (restarted afterwards, as a supervisor would, so the runs can end). */
  exits: string[];
}

export interface ScenarioStores {
  /** Where the scenario's database is made: the private PostgreSQL for postgres_crash. */
  server: DatabaseServer | null;
  pg: PrivatePostgres | null;
  redis: PrivateRedis | null;
  /** Environment every node of the scenario gets. */
  nodeEnv: Record<string, string>;
  close(): Promise<void>;
}

export async function openStores(name: string, log: (line: string) => void): Promise<ScenarioStores | null> {
  if (name === 'postgres_crash') {
    const pg = await startPrivatePostgres('toolgate-chaos-crash-pg-');
    log(`  private PostgreSQL on 127.0.0.1:${pg.port} (crashed with pg_ctl stop -m immediate)`);
    const server = onServer(pg.adminUrl, { where: `private PostgreSQL (127.0.0.1:${pg.port})`, stop: () => pg.close() });
    return { server, pg, redis: null, nodeEnv: {}, close: () => server.close() };
  }
  if (name === 'redis_loss') {
    const redis = await startPrivateRedis();
    log(`  private redis-server on 127.0.0.1:${redis.port} (SIGKILLed)`);
    return { server: null, pg: null, redis, nodeEnv: { REDIS_URL: redis.url, EVENT_BUS: 'redis' }, close: () => redis.close() };
  }
  return null;
}

/** node-a runs every step on the job worker; node-b also starts steps in process. */
const NODE_ENV: Record<string, Record<string, string>> = { 'node-a': { LOCAL_STEP_CONCURRENCY: '0' }, 'node-b': {} };

const between = (random: () => number, low: number, high: number) => low + Math.floor(random() * (high - low + 1));

export async function storeScenario(ctx: ScenarioContext, store: StoreScenario): Promise<void> {
  const { cluster, driver, settings, log, record } = ctx;
  const stores = ctx.stores;
  if (!stores) throw new Error(`${store}: no private store`);
  let nodes = [await cluster.startNode('node-a', null, NODE_ENV['node-a']), await cluster.startNode('node-b', null, NODE_ENV['node-b'])];
  const { control } = cluster;
  const sizes: number[] = [];
  for (let left = settings.runs; left > 0; left -= settings.batch) sizes.push(Math.min(settings.batch, left));
  for (const [index, size] of sizes.entries()) {
    const outageMs = store === 'postgres_crash' ? between(settings.random, 8000, 20_000) : between(settings.random, 4000, 8000);
    log(
      `  batch ${index + 1}/${sizes.length}: ${size} invoice run(s) + ${settings.lookups} lookup(s) through both nodes; ${store} down ${outageMs} ms`,
    );
    await control.clearFaults();
    await control.fault('nango', { kind: 'slow', delayMs: settings.slowMs }, { pathIncludes: '/invoice', times: size });
    if (settings.lookups)
      await control.fault('shopify', { kind: 'slow', delayMs: settings.slowMs }, { pathIncludes: 'graphql.json', times: settings.lookups });
    const baseline = (await control.requests()).length;
    const runs: TrackedRun[] = [];
    for (let i = 0; i < size; i++) {
      const run = await driver.startInvoiceRun(nodes[i % 2], index);
      if (run) runs.push(run);
    }
    if (
      !(await driver.waitForApprovals(
        nodes[1],
        runs.map((r) => r.id),
        30_000,
      ))
    )
      throw new Error(`the approvals of batch ${index + 1} did not all appear within 30 s`);
    for (let i = 0; i < settings.lookups; i++) {
      const run = await driver.startLookupRun(nodes[i % 2], index);
      if (run) runs.push(run);
    }
    const approvals = (await driver.pendingApprovals(nodes[0])).filter((a) => runs.some((r) => r.id === a.runId));
    for (const [i, approval] of approvals.entries()) await driver.approve(nodes[i % 2], approval.id);
    // The store goes while the steps run: once the vendor holds a write of the batch (or 5 s).
    const heldBy = Date.now() + 5000;
    while (Date.now() < heldBy) {
      const requests = (await control.requests()).slice(baseline);
      if (requests.some((r) => r.vendor === 'nango' && r.method === 'POST' && r.fault === 'slow')) break;
      await sleep(50);
    }
    const outage = await storeOutage(ctx, store, nodes, outageMs);
    for (const [i, node] of nodes.entries()) {
      if (node.child.alive()) continue;
      const exit = await node.child.exited;
      outage.exits.push(`${node.name}#${node.incarnation} (${exit.signal ?? `code ${exit.code}`})`);
      nodes[i] = await cluster.startNode(node.name, null, NODE_ENV[node.name]);
    }
    nodes = [...nodes];
    record.quietAfter = Math.max(record.quietAfter, Date.now() + settings.slowMs + 500);
    const back = Date.now();
    record.storeBackAt = back;
    const outcome = await driver.drive({
      deadline: back + settings.terminalWithinMs,
      approve: true,
      done: async () => {
        const statuses = await driver.runStatuses(driver.liveNode());
        return runs.every((r) => TERMINAL_RUN.has(statuses.get(r.id) ?? ''));
      },
    });
    outage.terminalAfterMs = outcome === 'done' ? Date.now() - back : null;
    record.outages.push(outage);
    log(
      `  ${outage.store} down ${(outage.durationMs / 1000).toFixed(1)} s: ${outage.answered} probes answered, ${outage.unanswered.length} not; batch terminal ${outage.terminalAfterMs === null ? 'NOT within the limit' : `${(outage.terminalAfterMs / 1000).toFixed(1)} s after its return`}`,
    );
  }
}

/** Takes the store away for `durationMs`, probing every node meanwhile; resolves once it is back and both nodes are ready. */
async function storeOutage(ctx: ScenarioContext, store: StoreScenario, nodes: Node[], durationMs: number): Promise<OutageRecord> {
  const stores = ctx.stores!;
  const atMs = Date.now() - ctx.record.startedAt;
  const started = Date.now();
  if (store === 'postgres_crash') await stores.pg!.crash();
  else await stores.redis!.crash();
  let answered = 0;
  const unanswered: string[] = [];
  const expected = store === 'postgres_crash' ? 503 : 200;
  while (Date.now() - started < durationMs) {
    for (const node of nodes) {
      if (!node.child.alive()) continue; // counted once, as an exit
      const problem = await probe(ctx, node, expected);
      if (problem === null) answered += 1;
      else unanswered.push(`${node.name} at ${((Date.now() - started) / 1000).toFixed(1)} s: ${problem}`);
    }
    await sleep(500);
  }
  if (store === 'postgres_crash') await stores.pg!.restart();
  else await stores.redis!.restart();
  const actual = Date.now() - started;
  // Ready again: /readyz 200 (plain, once Redis is back) on each node still running.
  const readyBy = Date.now() + 30_000;
  for (const node of nodes.filter((n) => n.child.alive())) {
    while (Date.now() < readyBy) {
      const ready = await fetch(`http://127.0.0.1:${node.port}/readyz`, { signal: AbortSignal.timeout(2000) })
        .then(async (r) => r.status === 200 && !((await r.json()) as { degraded?: unknown }).degraded)
        .catch(() => false);
      if (ready) break;
      await sleep(100);
    }
  }
  return {
    store: store === 'postgres_crash' ? 'postgresql' : 'redis',
    atMs,
    durationMs: actual,
    answered,
    unanswered,
    terminalAfterMs: null,
    exits: [],
  };
}

/** null when the node answered as it should while the store is gone; else what it did. */
async function probe(ctx: ScenarioContext, node: Node, expected: number): Promise<string | null> {
  if (!node.child.alive()) return 'exited';
  try {
    const ready = await fetch(`http://127.0.0.1:${node.port}/readyz`, { signal: AbortSignal.timeout(3000) });
    await ready.body?.cancel();
    if (ready.status !== expected) return `/readyz ${ready.status}`;
  } catch (error) {
    return `/readyz: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`;
  }
  try {
    await graphql(node.url, ctx.cluster.seed.keys.client, '{ runs(first: 1) { edges { node { id } } } }', {}, 3000);
    return expected === 200 ? null : 'a request answered 200 while the database was gone';
  } catch (error) {
    if (error instanceof GraphqlError && error.code === 'SERVICE_UNAVAILABLE' && expected === 503) return null;
    return `a request: ${(error as Error).message}`;
  }
}
