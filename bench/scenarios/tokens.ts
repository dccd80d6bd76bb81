import { performance } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import pg from 'pg';
import { startAgentServer, type AgentServer } from '../lib/agent-server';
import type { BenchDatabase } from '../lib/database';
import { GqlSocket } from '../lib/gql-ws';
import { profiled } from '../lib/profile';
import { GraphQLClient } from '../lib/http-client';
import { figure, type BenchContext, type Figure, type Goal } from '../lib/measure';
import { GOALS } from '../lib/goals';
import { latencyStats, median, summarize, type RunStats } from '../lib/stats';
import { bounded, envInt, fmtMs, RunMeter, until } from '../lib/timing';
import type { MessagesRequest } from '../../src/llm/dev-double/offline-model.types';
import type { TokenEvent } from '../../src/runs/run-events';

/**
 * 5. Tokens: what `runTokens` adds to model streaming. An agent run ("What's the status of
 * my order #12345?": a streamed turn with a tool call, the instant vendor, a second streamed
 * turn) is started over HTTP and its `runTokens` subscribed over graphql-ws at once; the
 * offline model streams one word per text delta, a delta every 20 ms (BENCH_TOKEN_DELAY_MS,
 * BENCH_TOKEN_WORDS change that).
 *
 * (a) Time to first token: from the startAgentRun request to the first token at the
 *     subscriber, against the real @anthropic-ai/sdk streaming the run's own first model
 *     request straight from the same offline model (request → first text delta).
 * (b) Per delta: from the moment the runtime received the delta (a listener on
 *     `services.runEvents` 'token', in this process) to its receipt by the subscriber
 *     (the first received delta whose text reaches the end of it). The SDK's inter-delta
 *     gaps of the same requests are shown as context: they are what a direct reader sees.
 */
const QUESTION = "What's the status of my order #12345?";
const START = 'mutation($input: StartAgentRunInput!) { startAgentRun(input: $input) { id status } }';
const TOKENS = `subscription($runId: ID!, $after: String) {
  runTokens(runId: $runId, afterOffset: $after) { runId offset text }
}`;

export interface TokensEnv {
  db: BenchDatabase;
}

interface TokenItem {
  runId: string;
  offset: string;
  text: string;
}

interface Emitted {
  runId: string;
  end: number;
  at: number;
}

interface RoundResult {
  ttft: RunStats;
  delta: RunStats;
  /** start request → first token received by the runtime (the runtime's own TTFT), per run. */
  runtimeTtft: number[];
  /** start request → the run's job picked up (its step started), per run. */
  stepStart: number[];
  /** The first delta of each run: runtime → subscriber. */
  firstRelay: number[];
  /** From the start request: the mutation's answer, the subscription's listener registered, the relay's first wake-up of it. */
  answered: number[];
  /** From the start request: the model received the run's first request. */
  modelRequest: number[];
  listened: number[];
  relayed: number[];
  /** Deltas emitted before the subscription's listener was registered (excluded from (b)). */
  early: number;
  /** Items the subscriber received per run (coalescing: fewer than deltas). */
  itemsPerRun: number;
  deltasPerRun: number;
}

interface BaselineResult {
  ttft: RunStats;
  gaps: RunStats;
}

export async function tokensScenario(ctx: BenchContext, env: TokensEnv): Promise<Figure[]> {
  const { settings } = ctx;
  const perRound = envInt('BENCH_TOKEN_RUNS', settings.quick ? 3 : 10);
  // The model's pace: one word per text delta, a delta every 20 ms (≈ 50 deltas/s).
  const DELTA_DELAY_MS = envInt('BENCH_TOKEN_DELAY_MS', 20);
  const WORDS_PER_DELTA = envInt('BENCH_TOKEN_WORDS', 1);
  ctx.log(
    `tokens: ${perRound} agent runs per round through runTokens vs the SDK streaming the same requests (${WORDS_PER_DELTA} word per delta, a delta every ${DELTA_DELAY_MS} ms)`,
  );
  let agent: AgentServer | null = null;
  let socket: GqlSocket | null = null;
  let http: GraphQLClient | null = null;
  // The bench's own polls (run status): not through the server's pool.
  const polls = new pg.Pool({ connectionString: env.db.url, max: 1 });
  const emitted: Emitted[] = [];
  /** The ORM's statement count when the run's first delta arrived (BENCH_COUNT_STATEMENTS=1). */
  let firstStatements = Number.NaN;
  const tokenListener = (event: TokenEvent) => {
    if (emitted.length === 0) firstStatements = agent?.statements ?? Number.NaN;
    emitted.push({ runId: event.runId, end: event.offset + event.text.length, at: performance.now() });
  };
  try {
    agent = await startAgentServer(env.db, { deltaDelayMs: DELTA_DELAY_MS, wordsPerDelta: WORDS_PER_DELTA });
    const { server, seed } = agent;
    ctx.log(`  agent server on ${server.url} (worker, offline model ${agent.model.url})`);
    server.services.runEvents.on('token', tokenListener);
    // When the subscription's listener is registered (runId → time): a delta emitted after it
    // certainly took the live path.
    const listening = new Map<string, number>();
    // When the relay first woke a subscriber of the run (its first delta reached this node's relay).
    const woken = new Map<string, number>();
    const relay = server.services.realtime!.tokens;
    const listen = relay.listen.bind(relay);
    relay.listen = (runId, orgId, listener) => {
      if (!listening.has(runId)) listening.set(runId, performance.now());
      return listen(runId, orgId, () => {
        if (!woken.has(runId)) woken.set(runId, performance.now());
        listener();
      });
    };
    // When each run's step starts (on the committing node, or its job picked up).
    const stepStarts = new Map<string, number>();
    const runtime = server.services.runtime;
    const step = runtime.step.bind(runtime);
    runtime.step = (runId, known) => {
      if (!stepStarts.has(runId)) stepStarts.set(runId, performance.now());
      return step(runId, known);
    };
    http = new GraphQLClient(server.url, 2);
    socket = new GqlSocket(server.wsUrl, seed.keys.client);
    await socket.ready();
    const sdk = new Anthropic({ apiKey: 'offline-model', baseURL: agent.model.url, maxRetries: 0 });

    let requests: MessagesRequest[] = [];
    /** When the model received each request of the current run (the bench's clock). */
    let requestedAt: number[] = [];
    agent.onModelRequest = (request, at) => {
      requests.push(request);
      requestedAt.push(at);
    };

    /** One run through Toolgate, started over HTTP and followed by a runTokens subscription until its text is complete. */
    const oneRun = async () => {
      emitted.length = 0;
      requests = [];
      requestedAt = [];
      const counted = agent!.statements;
      const received: { end: number; at: number }[] = [];
      let failure: unknown = null;
      const t0 = performance.now();
      const { startAgentRun } = await http!.request<{ startAgentRun: { id: string } }>(
        START,
        { input: { specialistId: seed.specialistId, message: QUESTION } },
        seed.keys.client,
      );
      const answeredAt = performance.now();
      const runId = startAgentRun.id;
      const stop = socket!.subscribe<TokenItem>(
        TOKENS,
        { runId, after: null },
        'runTokens',
        (item) => received.push({ end: Number(item.offset) + item.text.length, at: performance.now() }),
        (error) => (failure = error),
      );
      try {
        await until(
          async () => {
            if (failure) throw new Error(`runTokens failed: ${JSON.stringify(failure)}`);
            const { rows } = await polls.query<{ status: string }>('select status from agent_runs where id = $1', [runId]);
            return rows[0].status !== 'queued' && rows[0].status !== 'running';
          },
          `run ${runId} to finish`,
          30_000,
          5,
        );
        const [row] = (
          await polls.query<{ status: string; error_code: string | null }>('select status, error_code from agent_runs where id = $1', [runId])
        ).rows;
        if (row.status !== 'completed') throw new Error(`run ${runId} ended ${row.status} (${row.error_code})`);
        const mine = emitted.filter((e) => e.runId === runId);
        const textEnd = Math.max(...mine.map((e) => e.end));
        await bounded(
          until(() => received.some((r) => r.end >= textEnd), 'the whole text at the subscriber', 10_000, 2),
          'tokens',
        );
      } finally {
        stop();
      }
      const live = listening.get(runId) ?? Number.POSITIVE_INFINITY;
      listening.delete(runId);
      const stepAt = stepStarts.get(runId) ?? Number.NaN;
      stepStarts.delete(runId);
      const wokenAt = woken.get(runId) ?? Number.NaN;
      woken.delete(runId);
      const mine = emitted.filter((e) => e.runId === runId);
      const latencies: number[] = [];
      let early = 0;
      for (const e of mine) {
        if (e.at < live) {
          early += 1;
          continue;
        }
        const got = received.find((r) => r.end >= e.end);
        if (!got) throw new Error(`delta ending at ${e.end} never reached the subscriber`);
        latencies.push(got.at - e.at);
      }
      return {
        statements: counted === null ? Number.NaN : firstStatements - counted,
        ttft: received[0].at - t0,
        runtimeTtft: mine[0].at - t0,
        stepStart: stepAt - t0,
        firstRelay: received[0].at - mine[0].at,
        answered: answeredAt - t0,
        modelRequest: (requestedAt[0] ?? Number.NaN) - performance.timeOrigin - t0,
        listened: live - t0,
        relayed: wokenAt - t0,
        latencies,
        early,
        items: received.length,
        deltas: mine.length,
        requests: [...requests],
      };
    };

    /** The SDK reading the same requests straight from the model: TTFT of the first, every inter-delta gap. */
    const direct = async (captured: MessagesRequest[]) => {
      let ttft = Number.NaN;
      const gaps: number[] = [];
      for (const [i, request] of captured.entries()) {
        const { stream: _stream, ...body } = request;
        const t0 = performance.now();
        let last = Number.NaN;
        const stream = sdk.messages.stream(body as unknown as Anthropic.MessageCreateParams);
        stream.on('text', () => {
          const at = performance.now();
          if (Number.isNaN(last)) {
            if (i === 0) ttft = at - t0;
          } else {
            gaps.push(at - last);
          }
          last = at;
        });
        await stream.finalMessage();
      }
      return { ttft, gaps };
    };

    // Warm-up (JIT, pools, the catalog cache) and the requests the baseline replays.
    const warm = await oneRun();
    const captured = warm.requests;
    if (captured.length < 2) throw new Error(`expected 2 model requests per run, saw ${captured.length}`);
    await direct(captured);
    ctx.log(`  a run: ${warm.deltas} deltas in ${captured.length} model turns, ${warm.items} runTokens items at the subscriber`);

    const rounds: RoundResult[] = [];
    const baselines: BaselineResult[] = [];
    for (let round = 0; round < settings.runs; round++) {
      const order = round % 2 === 0 ? ['toolgate', 'sdk'] : ['sdk', 'toolgate'];
      for (const which of order) {
        if (which === 'toolgate') {
          // Fresh sockets: one idle through the SDK's round may be closed by the server as it is reused (ECONNRESET).
          http.reset();
          const meter = new RunMeter().start();
          const ttfts: number[] = [];
          const runtimeTtft: number[] = [];
          const stepStart: number[] = [];
          const firstRelay: number[] = [];
          const answered: number[] = [];
          const modelRequest: number[] = [];
          const listened: number[] = [];
          const relayed: number[] = [];
          const latencies: number[] = [];
          let early = 0;
          let items = 0;
          let deltas = 0;
          const statements: number[] = [];
          await profiled(`tokens-${round + 1}`, async () => {
            for (let i = 0; i < perRound; i++) {
              const r = await oneRun();
              ttfts.push(r.ttft);
              runtimeTtft.push(r.runtimeTtft);
              stepStart.push(r.stepStart);
              firstRelay.push(r.firstRelay);
              answered.push(r.answered);
              modelRequest.push(r.modelRequest);
              listened.push(r.listened);
              relayed.push(r.relayed);
              statements.push(r.statements);
              latencies.push(...r.latencies);
              early += r.early;
              items += r.items;
              deltas += r.deltas;
            }
          });
          const ttft = meter.finish(ttfts, { throughput: Number.NaN, cpuOps: perRound });
          const delta: RunStats = {
            ...ttft,
            ...latencyStats(latencies),
            ops: latencies.length,
            cpuMsPerOp: (ttft.cpuMsPerOp * perRound) / Math.max(1, deltas),
          };
          rounds.push({
            ttft,
            delta,
            runtimeTtft,
            stepStart,
            firstRelay,
            answered,
            modelRequest,
            listened,
            relayed,
            early,
            itemsPerRun: items / perRound,
            deltasPerRun: deltas / perRound,
          });
          ctx.log(
            `  tokens run ${round + 1}/${settings.runs} runTokens (${perRound} runs)       TTFT p50 ${fmtMs(ttft.p50)} p99 ${fmtMs(ttft.p99)} ms ` +
              `(step started ${fmtMs(median(stepStart))}, model request ${fmtMs(median(modelRequest))}, runtime's first delta ${fmtMs(median(runtimeTtft))}, its relay ${fmtMs(median(firstRelay))}; answered ${fmtMs(median(answered))}, listener ${fmtMs(median(listened))}, relay woke it ${fmtMs(median(relayed))})  per delta p50 ${fmtMs(delta.p50)} p95 ${fmtMs(delta.p95)} p99 ${fmtMs(delta.p99)} ms ` +
              `over ${latencies.length} deltas${Number.isFinite(statements[0]) ? `, ${median(statements)} statements start → first delta` : ''}${early ? ` (${early} before the listener, excluded)` : ''}, ${(items / perRound).toFixed(1)} items/run  rss ${ttft.peakRssMb.toFixed(0)} MB  load ${ttft.loadAvg1m.toFixed(1)}`,
          );
        } else {
          const meter = new RunMeter().start();
          const ttfts: number[] = [];
          const gaps: number[] = [];
          for (let i = 0; i < perRound; i++) {
            const r = await direct(captured);
            ttfts.push(r.ttft);
            gaps.push(...r.gaps);
          }
          const ttft = meter.finish(ttfts, { throughput: Number.NaN, cpuOps: perRound });
          const gapStats: RunStats = { ...ttft, ...latencyStats(gaps), ops: gaps.length };
          baselines.push({ ttft, gaps: gapStats });
          ctx.log(
            `  tokens run ${round + 1}/${settings.runs} SDK direct (${perRound} × ${captured.length} streams) TTFT p50 ${fmtMs(ttft.p50)} p99 ${fmtMs(ttft.p99)} ms  ` +
              `inter-delta gap p50 ${fmtMs(gapStats.p50)} p99 ${fmtMs(gapStats.p99)} ms  load ${ttft.loadAvg1m.toFixed(1)}`,
          );
        }
      }
    }

    const section = 'Tokens — runTokens relay against the SDK reading the model directly';
    const early = rounds.reduce((n, r) => n + r.early, 0);
    const common = {
      section,
      concurrency: 1,
      unit: 'ops/s',
      concurrencyLabel: 'subscribers',
      note: `offline model: ${WORDS_PER_DELTA} word per text delta, ${DELTA_DELAY_MS} ms between deltas; ${perRound} runs per round, one at a time`,
    };
    // Time to first token: round three's goals (bench/lib/goals.ts); per delta: round one's (p50 ≤ 5, p99 ≤ 20 ms).
    const goals = (p50: number, p99: number, p99Max: number, p50Max = 5): Goal[] => [
      { label: `p50 ≤ ${p50Max} ms`, short: `p50 ≤ ${p50Max} ms`, pass: p50 <= p50Max },
      { label: `p99 ≤ ${p99Max} ms`, short: `p99 ≤ ${p99Max} ms`, pass: p99 <= p99Max },
    ];
    const ttftFigure = figure(
      {
        ...common,
        id: 'tokens.ttft',
        name: 'time to first token (start → subscriber)',
        subject: summarize(rounds.map((r) => r.ttft)),
        baselineName: 'SDK direct, same request',
        baseline: summarize(baselines.map((b) => b.ttft)),
        extra: {
          stepStartedP50: median(rounds.map((r) => median(r.stepStart))),
          runtimeTtftP50: median(rounds.map((r) => median(r.runtimeTtft))),
          firstDeltaRelayP50: median(rounds.map((r) => median(r.firstRelay))),
          answeredP50: median(rounds.map((r) => median(r.answered))),
          modelRequestP50: median(rounds.map((r) => median(r.modelRequest))),
          listenerP50: median(rounds.map((r) => median(r.listened))),
          relayWokeP50: median(rounds.map((r) => median(r.relayed))),
        },
      },
      ({ p50DeltaMs, p99DeltaMs }) =>
        goals(p50DeltaMs, p99DeltaMs, GOALS.firstTokenAddedP99Ms, GOALS.firstTokenAddedP50Ms).map((g) => ({
          ...g,
          label: `added ${g.label}`,
          short: `Δ${g.short}`,
        })),
    );
    const deltaFigure = figure(
      {
        ...common,
        id: 'tokens.delta',
        name: 'per delta (runtime → subscriber)',
        subject: summarize(rounds.map((r) => r.delta)),
        baselineName: 'SDK direct: inter-delta gap (context)',
        baseline: summarize(baselines.map((b) => b.gaps)),
        extra: {
          itemsPerRun: median(rounds.map((r) => r.itemsPerRun)),
          deltasPerRun: median(rounds.map((r) => r.deltasPerRun)),
          deltasBeforeListener: early,
        },
      },
      ({ subject }) => goals(subject.p50, subject.p99, 20),
      { compareLatency: false },
    );
    const x = ttftFigure.extra!;
    ttftFigure.details = [
      `Time to first token: from sending startAgentRun to the first runTokens item at the subscriber, against the SDK's request → first text delta for the same first model request; goals on the added time (p50 Δ, p99 Δ). ` +
        `Breakdown (medians of per-round medians, from the start request): the run's job picked up and its step started after ${x.stepStartedP50.toFixed(1)} ms, ` +
        `the runtime had its first text delta after ${x.runtimeTtftP50.toFixed(1)} ms (the step's database work, the model request and the model's own time to first token), ` +
        `and relaying that first delta to the subscriber took ${x.firstDeltaRelayP50.toFixed(1)} ms. ` +
        `The model received the first request after ${x.modelRequestP50.toFixed(1)} ms; the mutation answered after ${x.answeredP50.toFixed(1)} ms, the subscription's listener was registered after ${x.listenerP50.toFixed(1)} ms, ` +
        `and the relay woke it with the first delta after ${x.relayWokeP50.toFixed(1)} ms.`,
      `Per delta: from the runtime's receipt of a text delta (services.runEvents 'token') to the subscriber's receipt of the item that completes it; ` +
        `${deltaFigure.extra!.deltasPerRun.toFixed(0)} deltas per run arrived as ${deltaFigure.extra!.itemsPerRun.toFixed(1)} items (coalesced)` +
        `${early ? `; ${early} deltas emitted before the subscription's listener was registered were left out` : ''}. The baseline column shows the SDK's own inter-delta gaps (no relay: 0 added by definition).`,
    ];
    return [ttftFigure, deltaFigure];
  } finally {
    agent?.server.services.runEvents.off('token', tokenListener);
    await socket?.close();
    http?.close();
    await polls.end().catch(() => undefined);
    await agent?.close();
  }
}
