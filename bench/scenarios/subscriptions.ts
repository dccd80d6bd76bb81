import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { newOrg, newRun, type BenchServer } from '../lib/app';
import { figure, type BenchContext, type Figure, type Goal } from '../lib/measure';
import { GOALS } from '../lib/goals';
import { summarize, type RunStats } from '../lib/stats';
import { collectGarbage, envInt, fmtMs, pause, RunMeter, until, wallNow, type LatencyStats } from '../lib/timing';
import { WsFleet } from '../lib/ws-fleet';
import { profiled } from '../lib/profile';
import type { FleetVariant, Publication } from '../lib/ws-fleet-protocol';
import { appendLedgerEvents } from '../../src/ledger/ledger.service';
import { createKey } from '../../src/orgs/org.service';

/**
 * 4. Subscriptions: N graphql-ws subscribers (default 1,000; the real `graphql-ws` client
 * over `ws`, in a child process) on one Toolgate server, all subscribed to
 * `runEvents(runId, afterSequence)` of the same run. Events are committed to the ledger
 * (`appendLedgerEvents` in `em.transactional`, one event per transaction) and reach the
 * subscribers the production way: a NOTIFY after commit, the node's ledger tail reads them
 * once, the group executes each event once and writes it to every member's socket. Latency
 * is publication → receipt at each client, over every delivery, and in the steady load also
 * schedule → receipt (the shape says which the goal uses).
 *
 * Baseline, measured in the same rounds: a raw `ws` WebSocketServer in this process
 * broadcasting the same JSON (a graphql-ws `next` message of the same event, same size)
 * to N raw `ws` clients in the same child; published at the broadcast's start.
 *
 * Two loads: a steady rate (events/s, latency) and a burst (events committed back to back,
 * delivered frames/s). Then memory per idle connection (connection_init acknowledged, one
 * live subscription each) against raw sockets: RSS and heap of this process, after a GC,
 * before and after opening N of them.
 */
const RUN_EVENTS = `subscription($runId: ID!, $after: String) {
  runEvents(runId: $runId, afterSequence: $after) { sequence type runId resourceId metadata createdAt }
}`;
const SUBSCRIPTION_ID = '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b';

export interface SubscriptionsEnv {
  server: BenchServer;
}

/** Which variant of the scenario: 1,000 subscribers (steady and bursts), or 10,000 (steady). */
export interface SubscriptionsShape {
  /** Figure ids start with it: `subscriptions` or `subscriptions10k`. */
  id: string;
  clients: number;
  bursts: boolean;
  /** The goals of each load (docs/benchmarks.md): the steady p99 in ms, or as a multiple of raw ws's p99 in the same run (round three, 10,000 subscribers). */
  steadyP99Ms?: number;
  steadyP99OfRaw?: number;
  /**
   * Where the steady load's latency (and its goal) starts: `publish`, the commit's return
   * (gql) or the broadcast's start (raw), round one's definition; or `schedule`, the time
   * the load meant to publish the event (start + n × period), so that a producer that falls
   * behind its schedule (a broadcast holding up the loop, a slow commit) pays for it. Both
   * are measured and logged; this one is the figure.
   */
  latencyFrom: 'publish' | 'schedule';
  burstRatio?: number;
  heapKbPerSubscription?: number;
}

export const SUBSCRIPTIONS_1K = (): SubscriptionsShape => ({
  id: 'subscriptions',
  clients: envInt('BENCH_SUBSCRIBERS', 1000),
  bursts: true,
  steadyP99Ms: 50,
  latencyFrom: 'publish',
  burstRatio: GOALS.burstOfRaw,
});

export const SUBSCRIPTIONS_10K = (): SubscriptionsShape => ({
  id: 'subscriptions10k',
  clients: envInt('BENCH_SUBSCRIBERS_LARGE', 10_000),
  bursts: false,
  steadyP99OfRaw: GOALS.fleetP99OfRaw,
  latencyFrom: 'schedule',
  heapKbPerSubscription: 12,
});

/** KB per connection (or subscription) and the time to open all of them. */
export interface MemoryDelta {
  rssKb: number;
  heapKb: number;
  externalKb: number;
  openMs: number;
}

export interface ConnectionMemory {
  clients: number;
  /** A graphql-ws connection with one live subscription (the two below together). */
  gql: MemoryDelta;
  /** A graphql-ws connection alone (connection_init acknowledged). */
  connection: MemoryDelta;
  /** One live runEvents subscription on it. */
  subscription: MemoryDelta;
  raw: MemoryDelta;
  frameBytes: number;
  clockOffsetMs: number;
  clockRttMs: number;
}

const metadata = (position: number) => ({ position, role: 'assistant', stopReason: 'end_turn', outputTokens: 42 });

interface RunResult {
  stats: RunStats;
  /** The steady load's latency from the other start than `stats` (see `latencyFrom`); null in a burst. */
  other: LatencyStats | null;
  frameBytes: number;
  childCpuMsPerFrame: number;
  /** The clients' CPU over the run's wall time (1 = one core busy). */
  childCores: number;
  firstError: string | null;
}

export async function subscriptionsScenario(
  ctx: BenchContext,
  env: SubscriptionsEnv,
  shape: SubscriptionsShape = SUBSCRIPTIONS_1K(),
): Promise<{ figures: Figure[]; memory: ConnectionMemory }> {
  const { settings } = ctx;
  const { clients } = shape;
  const rate = envInt('BENCH_SUBS_RATE', 10);
  const burst = envInt('BENCH_SUBS_BURST', settings.quick ? 10 : 100);
  /** Above this many clients the two fleets run one after the other (see below). */
  const sequential = clients > envInt('BENCH_SUBS_SEQUENTIAL_ABOVE', 4000);
  const duration = settings.durationMs;
  const server = env.server;

  ctx.log(
    `subscriptions: ${clients} graphql-ws subscribers vs ${clients} raw ws clients (child process); ${rate} events/s steady${shape.bursts ? `, bursts of ${burst}` : ''}`,
  );
  const org = await newOrg(server, 'Subscriptions Org');
  // An expert's dashboard: audit roles get each event's metadata (other roles get `{}`).
  const expertKey = (await createKey(server.em(), org.orgId, 'expert')).secret;
  const runId = await newRun(server, org);
  const [head] = await server
    .em()
    .execute<{ sequence: string }[]>('select max(sequence) as sequence from ledger_events where org_id = ?', [org.orgId]);

  const rawHttp = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server: rawHttp, path: '/raw' });
  await new Promise<void>((resolve, reject) => {
    rawHttp.once('error', reject);
    rawHttp.listen(0, '127.0.0.1', () => resolve());
  });
  const rawUrl = `ws://127.0.0.1:${(rawHttp.address() as AddressInfo).port}/raw`;
  let fleet: WsFleet | null = null;
  let rawId = 0;
  const rawFrame = (id: number) =>
    JSON.stringify({
      id: SUBSCRIPTION_ID,
      type: 'next',
      payload: {
        data: {
          runEvents: {
            sequence: String(id),
            type: 'run.message_added',
            runId,
            resourceId: runId,
            metadata: metadata(id),
            createdAt: new Date().toISOString(),
          },
        },
      },
    });

  /**
   * One event: committed to the ledger (gql) or broadcast (raw), published at the commit's
   * return or the broadcast's start (times are `wallNow()`, the clock the fleet is calibrated to).
   */
  const publish = async (variant: FleetVariant, position: number, scheduledAt: number | null): Promise<Publication> => {
    if (variant === 'raw') {
      const id = ++rawId;
      const publishedAt = wallNow();
      const payload = rawFrame(id);
      for (const socket of wss.clients) socket.send(payload);
      return { id, publishedAt, scheduledAt };
    }
    const [event] = await server
      .em()
      .transactional((tx) =>
        appendLedgerEvents(tx, [{ orgId: org.orgId, type: 'run.message_added', runId, resourceId: runId, metadata: metadata(position) }]),
      );
    return { id: Number(event.sequence), publishedAt: wallNow(), scheduledAt };
  };

  /**
   * How far the last steady load's producer fell behind its schedule (ms): when the loop got
   * to each event (a broadcast or a fan-out holding up the loop delays the next one) and when
   * it was published (for gql, the commit's return). Logged beside each steady round.
   */
  let behind = { called: [] as number[], published: [] as number[] };

  /**
   * `rate` events a second for `ms`, each on its schedule (not waiting for the previous one):
   * event n is scheduled at start + n × period, one definition for both variants.
   */
  const steady = async (variant: FleetVariant, ms: number): Promise<Publication[]> => {
    const interval = 1000 / rate;
    const count = Math.max(1, Math.round(ms / interval));
    const start = wallNow();
    const called: number[] = [];
    const pending: Promise<Publication>[] = [];
    for (let i = 0; i < count; i++) {
      const scheduledAt = start + i * interval;
      // (A timer can fire a fraction of a millisecond early: no event goes out before its schedule.)
      for (let wait = scheduledAt - wallNow(); wait > 0; wait = scheduledAt - wallNow()) await pause(wait);
      called.push(wallNow() - scheduledAt);
      pending.push(publish(variant, i, scheduledAt));
    }
    const published = await Promise.all(pending);
    behind = { called, published: published.map((p) => p.publishedAt - (p.scheduledAt ?? p.publishedAt)) };
    return published;
  };

  /** `burst` events back to back: each commit (or broadcast) as soon as the previous one returned. */
  const back2back = async (variant: FleetVariant): Promise<Publication[]> => {
    const out: Publication[] = [];
    for (let i = 0; i < burst; i++) {
      out.push(await publish(variant, i, null));
      if (variant === 'raw') await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return out;
  };

  /** The start of the steady latency that is not the figure's, for the log. */
  const otherStart = (variant: FleetVariant) =>
    shape.latencyFrom === 'publish' ? 'from the schedule' : variant === 'gql' ? 'from the commit' : 'from the broadcast';
  const behindSchedule = () => {
    const worst = (values: number[]) => fmtMs(Math.max(...values)).trim();
    const median = (values: number[]) => fmtMs([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]).trim();
    return `behind schedule: loop p50 ${median(behind.called)} / max ${worst(behind.called)} ms, published p50 ${median(behind.published)} / max ${worst(behind.published)} ms`;
  };

  const measureOnce = async (variant: FleetVariant, load: () => Promise<Publication[]>): Promise<RunResult> => {
    await fleet!.record(variant);
    const meter = new RunMeter().start();
    let publishes: Publication[];
    try {
      publishes = await load();
    } catch (error) {
      meter.abort();
      throw error;
    }
    const reply = await fleet!.collect(variant, publishes, 60_000);
    const elapsedMs = reply.lastReceipt - reply.firstPublish;
    const [latency, other] =
      shape.latencyFrom === 'schedule' && reply.fromSchedule ? [reply.fromSchedule, reply.fromPublish] : [reply.fromPublish, reply.fromSchedule];
    const stats = meter.finish(latency, { ops: reply.received, elapsedMs, errors: reply.expected - reply.received, cpuOps: reply.received });
    if (reply.strays) throw new Error(`${reply.strays} frames of events not published in this run`);
    return {
      stats,
      other,
      frameBytes: reply.frameBytes,
      childCpuMsPerFrame: reply.cpuMs / Math.max(1, reply.received),
      childCores: reply.cpuMs / Math.max(1, reply.wallMs),
      firstError: reply.firstError,
    };
  };

  try {
    fleet = await WsFleet.start();
    await fleet.calibrate();
    ctx.log(`  client process ${fleet.pid} (${fleet.placement}); clock offset ${fleet.offsetMs.toFixed(3)} ms (±${(fleet.rttMs / 2).toFixed(3)} ms)`);

    // Memory per idle connection, raw first (the smaller), each after a GC.
    const memoryOf = async (open: () => Promise<{ ms: number }>) => {
      collectGarbage();
      await pause(200);
      const before = process.memoryUsage();
      const { ms } = await open();
      await pause(500);
      collectGarbage();
      await pause(200);
      const after = process.memoryUsage();
      return {
        rssKb: (after.rss - before.rss) / 1024 / clients,
        heapKb: (after.heapUsed - before.heapUsed) / 1024 / clients,
        externalKb: (after.external - before.external) / 1024 / clients,
        openMs: ms,
      };
    };
    let raw!: MemoryDelta;
    const openRawFleet = async () => {
      raw = await memoryOf(async () => {
        const reply = await fleet!.openRaw(rawUrl, clients);
        await until(() => wss.clients.size === clients, `${clients} raw connections on the server`);
        return reply;
      });
      ctx.log(
        `  ${clients} raw ws connections open in ${raw.openMs.toFixed(0)} ms: ${raw.rssKb.toFixed(1)} KB RSS, ${raw.heapKb.toFixed(1)} KB heap, ${raw.externalKb.toFixed(1)} KB external each`,
      );
    };
    let gql!: MemoryDelta;
    let connections!: MemoryDelta;
    let subscriptions!: MemoryDelta;
    const openGqlFleet = async () => {
      connections = await memoryOf(() => fleet!.openGql(server.wsUrl, expertKey, clients));
      ctx.log(
        `  ${clients} graphql-ws connections acknowledged in ${connections.openMs.toFixed(0)} ms: ${connections.rssKb.toFixed(1)} KB RSS, ` +
          `${connections.heapKb.toFixed(1)} KB heap, ${connections.externalKb.toFixed(1)} KB external each`,
      );
      subscriptions = await memoryOf(() => fleet!.subscribeGql(RUN_EVENTS, { runId, after: String(BigInt(head.sequence) - 1n) }, 'runEvents'));
      ctx.log(
        `  ${clients} runEvents subscriptions live in ${subscriptions.openMs.toFixed(0)} ms: + ${subscriptions.rssKb.toFixed(1)} KB RSS, ` +
          `${subscriptions.heapKb.toFixed(1)} KB heap, ${subscriptions.externalKb.toFixed(1)} KB external each`,
      );
      gql = {
        rssKb: connections.rssKb + subscriptions.rssKb,
        heapKb: connections.heapKb + subscriptions.heapKb,
        externalKb: connections.externalKb + subscriptions.externalKb,
        openMs: connections.openMs + subscriptions.openMs,
      };
    };

    const variants: { key: FleetVariant; label: string }[] = [
      { key: 'raw', label: 'raw ws broadcast' },
      { key: 'gql', label: 'graphql-ws runEvents' },
    ];
    const allLoads = [
      {
        key: 'steady',
        title: `subscriptions ${rate}/s`,
        load: (v: FleetVariant) => () => steady(v, duration),
        warm: (v: FleetVariant) => () => steady(v, settings.warmupMs),
      },
      {
        key: 'burst',
        title: `subscriptions burst ${burst}`,
        load: (v: FleetVariant) => () => back2back(v),
        warm: (v: FleetVariant) => () => back2back(v),
      },
    ] as const;
    const loads = allLoads.filter((load) => shape.bursts || load.key !== 'burst');
    const results: Record<string, Record<FleetVariant, RunResult[]>> = {};
    for (const load of loads) results[load.key] = { raw: [], gql: [] };
    /** Every load's rounds for these variants (alternating their order round by round). */
    const rounds = async (active: typeof variants) => {
      for (const load of loads) {
        // (The quick smoke run warms up on the steady load only.)
        if (!(settings.quick && load.key === 'burst')) for (const v of active) await measureOnce(v.key, load.warm(v.key));
        for (let round = 0; round < settings.runs; round++) {
          const order = round % 2 === 0 ? active : [...active].reverse();
          for (const v of order) {
            const r = await profiled(`subscriptions-${load.key}-${v.key}-${round + 1}`, () => measureOnce(v.key, load.load(v.key)));
            results[load.key][v.key].push(r);
            const s = r.stats;
            const lag =
              load.key === 'steady'
                ? `  ${otherStart(v.key)}: p50 ${fmtMs(r.other?.p50 ?? Number.NaN)}  p99 ${fmtMs(r.other?.p99 ?? Number.NaN)} ms  ${behindSchedule()}`
                : '';
            ctx.log(
              `  ${load.title} c=${clients} run ${round + 1}/${settings.runs} ${v.label.padEnd(22)} ${s.throughput.toFixed(0).padStart(7)} frames/s  ` +
                `p50 ${fmtMs(s.p50)}  p95 ${fmtMs(s.p95)}  p99 ${fmtMs(s.p99)} ms  server cpu ${(s.cpuMsPerOp * 1000).toFixed(1)} µs/frame  ` +
                `clients cpu ${(r.childCpuMsPerFrame * 1000).toFixed(1)} µs/frame (${r.childCores.toFixed(2)} cores)  rss ${s.peakRssMb.toFixed(0)} MB  load ${s.loadAvg1m.toFixed(1)}` +
                `${lag}${s.errors ? `  MISSING ${s.errors} frames${r.firstError ? `: ${r.firstError}` : ''}` : ''}`,
            );
          }
        }
      }
    };
    if (!sequential) {
      await openRawFleet();
      await openGqlFleet();
      await rounds(variants);
    } else {
      // Both fleets at once would need two sockets per client in this process (the raw
      // server's and Toolgate's): past the descriptor limit, so one fleet after the other.
      ctx.log(`  ${clients} clients: raw fleet first, closed, then graphql-ws (both at once would pass the file descriptor limit)`);
      await openRawFleet();
      await rounds(variants.filter((v) => v.key === 'raw'));
      await fleet.closeRaw();
      await until(() => wss.clients.size === 0, 'the raw connections closed on the server');
      await openGqlFleet();
      await rounds(variants.filter((v) => v.key === 'gql'));
    }

    const frameBytes = (v: FleetVariant) => Math.max(...results.steady[v].map((r) => r.frameBytes));
    const summary = (load: string, v: FleetVariant) => summarize(results[load][v].map((r) => r.stats));
    const childCpu = (load: string, v: FleetVariant) => {
      const values = results[load][v].map((r) => r.childCpuMsPerFrame * 1000).sort((a, b) => a - b);
      return values[Math.floor(values.length / 2)];
    };
    /** Median over the steady rounds of the p99 from the other start (see `latencyFrom`). */
    const otherP99 = (v: FleetVariant) => {
      const values = results.steady[v].map((r) => r.other?.p99 ?? Number.NaN).sort((a, b) => a - b);
      return values[Math.floor(values.length / 2)];
    };
    const fromSchedule = shape.latencyFrom === 'schedule';
    const section = `Subscriptions — ${clients} graphql-ws subscribers of one run`;
    const note = `clients in a child process (${fleet.placement}); server CPU and RSS are the bench process's (server + raw baseline server); frames of ${frameBytes('gql')} bytes (graphql-ws) and ${frameBytes('raw')} bytes (raw)`;
    const common = {
      section,
      concurrency: clients,
      unit: 'frames/s',
      concurrencyLabel: 'clients',
      baselineName: 'raw ws broadcast, same JSON',
      note,
    };
    const latencyGoal = ({ subject, baseline }: { subject: { p99: number }; baseline: { p99: number } }): Goal[] => [
      ...(shape.steadyP99Ms === undefined
        ? []
        : [{ label: `p99 ≤ ${shape.steadyP99Ms} ms`, short: `p99 ≤ ${shape.steadyP99Ms} ms`, pass: subject.p99 <= shape.steadyP99Ms }]),
      ...(shape.steadyP99OfRaw === undefined
        ? []
        : [
            {
              label:
                `p99${fromSchedule ? ' from the schedule' : ''} ≤ ${shape.steadyP99OfRaw}× raw's p99 (${baseline.p99.toFixed(1)} ms)` +
                (fromSchedule
                  ? `; from the commit / the broadcast's start: ${otherP99('gql').toFixed(1)} against ${otherP99('raw').toFixed(1)} ms`
                  : ''),
              short: `p99 ≤ ${shape.steadyP99OfRaw}× raw`,
              pass: subject.p99 <= shape.steadyP99OfRaw * baseline.p99,
            },
          ]),
      ...(shape.heapKbPerSubscription === undefined
        ? []
        : [
            {
              label: `heap ≤ ${shape.heapKbPerSubscription} KB per subscription (connection included: ${gql.heapKb.toFixed(1)} KB)`,
              short: `≤ ${shape.heapKbPerSubscription} KB heap`,
              pass: gql.heapKb <= shape.heapKbPerSubscription,
            },
          ]),
    ];
    const figures = [
      figure(
        {
          ...common,
          id: `${shape.id}.steady`,
          name: `runEvents, ${rate} events/s`,
          subject: summary('steady', 'gql'),
          baseline: summary('steady', 'raw'),
          extra: {
            eventsPerSecond: rate,
            clientCpuUsPerFrame: childCpu('steady', 'gql'),
            baselineClientCpuUsPerFrame: childCpu('steady', 'raw'),
            heapKbPerSubscription: gql.heapKb,
            [fromSchedule ? 'p99FromPublishMs' : 'p99FromScheduleMs']: otherP99('gql'),
            [fromSchedule ? 'baselineP99FromPublishMs' : 'baselineP99FromScheduleMs']: otherP99('raw'),
          },
        },
        latencyGoal,
      ),
      ...(shape.bursts
        ? [
            figure(
              {
                ...common,
                id: `${shape.id}.burst`,
                name: `runEvents, burst of ${burst} events`,
                subject: summary('burst', 'gql'),
                baseline: summary('burst', 'raw'),
                extra: { burstEvents: burst, clientCpuUsPerFrame: childCpu('burst', 'gql'), baselineClientCpuUsPerFrame: childCpu('burst', 'raw') },
              },
              ({ ratio }) => {
                const goal = shape.burstRatio ?? GOALS.burstOfRaw;
                const pct = Math.round(goal * 100);
                return [{ label: `frames/s ≥ ${pct} % of raw`, short: `≥${pct}%`, pass: ratio >= goal }];
              },
            ),
          ]
        : []),
    ];
    figures[0].details = [
      `Steady: ${rate} events/s (one committed transaction each) for ${(duration / 1000).toFixed(1)} s, i.e. ${rate * clients} frames/s offered; latency ` +
        (fromSchedule
          ? `from each event's schedule (start + n × ${(1000 / rate).toFixed(0)} ms, the same for both: a producer behind its schedule pays for it) to each client's receipt, over every delivery; ` +
            `from the commit's return (gql) or the broadcast's start (raw), round three's start, p99 ${otherP99('gql').toFixed(1)} against ${otherP99('raw').toFixed(1)} ms. `
          : `from the commit's return (gql) or the broadcast's start (raw) to each client's receipt, over every delivery; ` +
            `from each event's schedule (start + n × ${(1000 / rate).toFixed(0)} ms), p99 ${otherP99('gql').toFixed(1)} against ${otherP99('raw').toFixed(1)} ms. `) +
        `Client CPU per frame (child process): ${childCpu('steady', 'gql').toFixed(1)} µs graphql-ws, ${childCpu('steady', 'raw').toFixed(1)} µs raw.`,
      ...(shape.bursts
        ? [
            `Burst: ${burst} events committed back to back (raw: broadcast back to back); frames/s = frames delivered ÷ (last receipt − first publish). ` +
              `Client CPU per frame: ${childCpu('burst', 'gql').toFixed(1)} µs graphql-ws, ${childCpu('burst', 'raw').toFixed(1)} µs raw.`,
          ]
        : []),
      `Memory per idle connection (this process, after a GC, ${clients} connections): graphql-ws with one live runEvents subscription ${gql.rssKb.toFixed(1)} KB RSS / ${gql.heapKb.toFixed(1)} KB heap ` +
        `(the connection ${connections.heapKb.toFixed(1)} KB heap, the subscription ${subscriptions.heapKb.toFixed(1)} KB); ` +
        `raw ws ${raw.rssKb.toFixed(1)} KB RSS / ${raw.heapKb.toFixed(1)} KB heap.`,
    ];
    return {
      figures,
      memory: {
        clients,
        gql,
        connection: connections,
        subscription: subscriptions,
        raw,
        frameBytes: frameBytes('gql'),
        clockOffsetMs: fleet.offsetMs,
        clockRttMs: fleet.rttMs,
      },
    };
  } finally {
    await fleet?.close();
    for (const socket of wss.clients) socket.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    await new Promise<void>((resolve) => rawHttp.close(() => resolve()));
  }
}
