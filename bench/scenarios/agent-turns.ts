import pg from 'pg';
import { startAgentServer, instantAgentExecutor, type AgentServer } from '../lib/agent-server';
import type { BenchDatabase } from '../lib/database';
import { GraphQLClient } from '../lib/http-client';
import { figure, type BenchContext, type Figure, type Goal } from '../lib/measure';
import { median, summarize, type RunStats } from '../lib/stats';
import { bounded, envInt, fmtMs, RunMeter, until, wallNow } from '../lib/timing';
import type { ExecutionRequest, ToolExecutor } from '../../src/executor/executor.types';
import { newToolUseId, OFFLINE_TOOLS, respond as offlineRespond } from '../../src/llm/dev-double/offline-model.brain';
import type { BrainResponse, MessagesRequest } from '../../src/llm/dev-double/offline-model.types';

/**
 * 10. Agent turns (issue 34, item 2): one assistant message with 1, 3 and 6 tool calls
 * (`order_lookup.lookup`), each answered by a vendor double at the process edge after
 * 200 ms (BENCH_VENDOR_MS). The runtime runs a turn's calls concurrently
 * (src/runtime/tool-rounds.ts, RUN_TOOL_CONCURRENCY: 4 by default), so a turn should take
 * about its slowest call. Turn time: the turn's model request arriving at the offline model
 * → the next model request (carrying the tool results) arriving there; in between the
 * model's streamed answer (no pause between deltas), the turn stored, every call through
 * the gateway (two commits each), the results stored and the next request built. CPU per
 * turn: process.cpuUsage() over that window (server, worker and model in this process; one
 * run at a time, the bench's polls idle).
 *
 * Baseline, in the same rounds: the slowest call alone — the same N calls of the vendor
 * double at once (Promise.all), without Toolgate.
 */
const START = 'mutation($input: StartAgentRunInput!) { startAgentRun(input: $input) { id status } }';
const CALLS_PER_TURN = [1, 3, 6];
const TURN_MARK = /^bench turn (\d+): (\d+) calls$/;

/** A vendor that answers each call after `latencyMs`, as the instant one would; reports each call's window. */
function slowVendor(latencyMs: number, onCall: (request: ExecutionRequest, started: number, ended: number) => void): ToolExecutor {
  return {
    execute: async (request) => {
      const started = wallNow();
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      const outcome = await instantAgentExecutor.execute(request);
      onCall(request, started, wallNow());
      return outcome;
    },
  };
}

/** The first user message's text, which names the turn (`bench turn <n>: <calls> calls`). */
function turnOf(request: MessagesRequest): { turn: number; calls: number } | null {
  const first = request.messages[0];
  const text = typeof first?.content === 'string' ? first.content : (first?.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
  const match = TURN_MARK.exec(text.trim());
  return match ? { turn: Number(match[1]), calls: Number(match[2]) } : null;
}

const hasToolResults = (request: MessagesRequest): boolean => {
  const last = request.messages[request.messages.length - 1];
  return last?.role === 'user' && Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result');
};

/** The scripted model: the turn's N tool calls at once, then the offline model's reply to their results. */
function turnBrain(request: MessagesRequest): BrainResponse {
  const turn = turnOf(request);
  if (!turn || hasToolResults(request)) return offlineRespond(request);
  return {
    content: [
      { type: 'text', text: 'Let me look these up.' },
      ...Array.from({ length: turn.calls }, (_, i) => ({
        type: 'tool_use' as const,
        id: newToolUseId(),
        name: OFFLINE_TOOLS.orderLookup,
        input: { orderId: String(12345 + i) },
      })),
    ],
    stopReason: 'tool_use',
  };
}

interface TurnTiming {
  /** The turn's model request arrived. */
  request?: number;
  cpuAtRequest?: NodeJS.CpuUsage;
  /** The next model request (with the results) arrived; CPU ms in between. */
  next?: number;
  cpuMs?: number;
  calls: [number, number][];
  done?: () => void;
}

export async function agentTurnsScenario(ctx: BenchContext, env: { db: BenchDatabase }): Promise<Figure[]> {
  const { settings } = ctx;
  const perRound = envInt('BENCH_TURNS', settings.quick ? 3 : 6);
  const vendorMs = envInt('BENCH_VENDOR_MS', 200);
  ctx.log(`agent turns: ${CALLS_PER_TURN.join(', ')} tool calls per turn at ${vendorMs} ms vendor latency, ${perRound} turns per round`);
  const timings = new Map<number, TurnTiming>();
  const timing = (turn: number): TurnTiming => {
    let t = timings.get(turn);
    if (!t) timings.set(turn, (t = { calls: [] }));
    return t;
  };
  const callTurns = new Map<string, number>(); // runId → turn
  const vendor = slowVendor(vendorMs, (request, started, ended) => {
    const turn = callTurns.get(request.runId);
    if (turn !== undefined) timing(turn).calls.push([started, ended]);
  });
  let agent: AgentServer | null = null;
  let http: GraphQLClient | null = null;
  const polls = new pg.Pool({ connectionString: env.db.url, max: 2 });
  try {
    agent = await startAgentServer(env.db, { deltaDelayMs: 0, executor: vendor, respond: turnBrain });
    const { server, seed } = agent;
    agent.onModelRequest = (request, at) => {
      const turn = turnOf(request);
      if (!turn) return;
      const t = timing(turn.turn);
      if (!hasToolResults(request)) {
        t.request = at;
        t.cpuAtRequest = process.cpuUsage();
      } else if (t.next === undefined && t.cpuAtRequest) {
        const cpu = process.cpuUsage(t.cpuAtRequest);
        t.next = at;
        t.cpuMs = (cpu.user + cpu.system) / 1000;
        t.done?.();
      }
    };
    http = new GraphQLClient(server.url, 1);
    const status = async (runId: string) =>
      (await polls.query<{ status: string }>('select status from agent_runs where id = $1', [runId])).rows[0]?.status;
    const jobsLeft = async (runId: string) =>
      Number((await polls.query<{ n: string }>('select count(*) as n from graphile_worker.jobs where queue_name = $1', [`run:${runId}`])).rows[0].n);

    let turnNo = 0;
    /** One run whose first turn asks for `calls` tool calls; its timing once the run completed. */
    const turn = async (calls: number): Promise<TurnTiming> => {
      const n = ++turnNo;
      const t = timing(n);
      const next = new Promise<void>((resolve) => (t.done = resolve));
      const data = await http!.request<{ startAgentRun: { id: string } }>(
        START,
        { input: { specialistId: seed.specialistId, message: `bench turn ${n}: ${calls} calls` } },
        seed.keys.client,
      );
      const runId = data.startAgentRun.id;
      callTurns.set(runId, n);
      await bounded(next, `turn ${n}'s next model request`, 30_000);
      // Polled only after the turn: the polls stay out of its CPU window.
      await until(
        async () => {
          const s = await status(runId);
          if (s === 'failed' || s === 'cancelled') throw new Error(`run ${runId} is ${s}`);
          return s === 'completed' && (await jobsLeft(runId)) === 0;
        },
        `run ${runId} to complete`,
        30_000,
        5,
      );
      callTurns.delete(runId);
      timings.delete(n);
      if (t.calls.length !== calls) throw new Error(`turn ${n}: the vendor saw ${t.calls.length} calls, not ${calls}`);
      return t;
    };
    /** The baseline: the same calls of the vendor double at once, without Toolgate. */
    const slowest = async (calls: number): Promise<{ ms: number; cpuMs: number }> => {
      const cpu0 = process.cpuUsage();
      const t0 = wallNow();
      await Promise.all(
        Array.from({ length: calls }, (_, i) =>
          vendor.execute({
            orgId: seed.orgId,
            runId: 'baseline',
            toolCallId: `baseline-${i}`,
            tool: { toolName: 'order_lookup', action: 'lookup', timeoutMs: null },
            params: { orderId: String(12345 + i) },
          }),
        ),
      );
      const ms = wallNow() - t0;
      const cpu = process.cpuUsage(cpu0);
      return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
    };

    await turn(1); // warm-up
    const figures: Figure[] = [];
    for (const calls of CALLS_PER_TURN) {
      await turn(calls);
      await slowest(calls);
      const subject: RunStats[] = [];
      const baseline: RunStats[] = [];
      const toFirstCall: number[] = [];
      const vendorWindow: number[] = [];
      const afterLastCall: number[] = [];
      for (let round = 0; round < settings.runs; round++) {
        const order = round % 2 === 0 ? ['turn', 'slowest'] : ['slowest', 'turn'];
        for (const which of order) {
          const meter = new RunMeter().start();
          const latencies: number[] = [];
          const cpu: number[] = [];
          if (which === 'turn') {
            const first: number[] = [];
            const window: number[] = [];
            const after: number[] = [];
            for (let i = 0; i < perRound; i++) {
              const t = await turn(calls);
              latencies.push(t.next! - t.request!);
              cpu.push(t.cpuMs!);
              const start = Math.min(...t.calls.map((c) => c[0]));
              const end = Math.max(...t.calls.map((c) => c[1]));
              first.push(start - t.request!);
              window.push(end - start);
              after.push(t.next! - end);
            }
            toFirstCall.push(median(first));
            vendorWindow.push(median(window));
            afterLastCall.push(median(after));
          } else {
            for (let i = 0; i < perRound; i++) {
              const s = await slowest(calls);
              latencies.push(s.ms);
              cpu.push(s.cpuMs);
            }
          }
          const stats = meter.finish(latencies, { throughput: Number.NaN });
          // CPU of the turn's window alone, not of the run around it.
          stats.cpuMsPerOp = cpu.reduce((a, b) => a + b, 0) / cpu.length;
          (which === 'turn' ? subject : baseline).push(stats);
          ctx.log(
            `  agent turns ${calls} call(s) run ${round + 1}/${settings.runs} ${which === 'turn' ? 'turn (model request → next)' : 'slowest call alone       '}` +
              `  p50 ${fmtMs(stats.p50)}  p95 ${fmtMs(stats.p95)}  p99 ${fmtMs(stats.p99)} ms  cpu ${stats.cpuMsPerOp.toFixed(2)} ms/turn  load ${stats.loadAvg1m.toFixed(1)}`,
          );
        }
      }
      const goals = ({ subject: s }: { subject: { p50: number } }): Goal[] =>
        calls === 3 ? [{ label: 'turn p50 ≤ 300 ms', short: 'p50 ≤ 300 ms', pass: s.p50 <= 300 }] : [];
      const f = figure(
        {
          id: `agentTurns.c${calls}`,
          section: `Agent turns — one assistant message of N tool calls at ${vendorMs} ms each`,
          name: `turn of ${calls} tool call${calls === 1 ? '' : 's'}`,
          concurrency: calls,
          unit: 'turns/s',
          concurrencyLabel: 'calls per turn',
          subject: summarize(subject),
          baselineName: 'the slowest call alone (vendor double)',
          baseline: summarize(baseline),
          note: `${perRound} turns per round, one run at a time; vendor double answering after ${vendorMs} ms; RUN_TOOL_CONCURRENCY default (4); CPU ms/op is per turn`,
          extra: {
            vendorMs,
            firstCallStartedP50: median(toFirstCall),
            vendorWindowP50: median(vendorWindow),
            afterLastCallP50: median(afterLastCall),
          },
        },
        goals,
      );
      f.details = [
        `${calls} call(s): the turn took ${f.subject.p50.toFixed(1)} ms (p50), ${f.p50DeltaMs.toFixed(1)} ms more than the slowest call alone; ` +
          `breakdown (medians of per-round medians, from the turn's model request): the first vendor call started after ${median(toFirstCall).toFixed(1)} ms ` +
          `(the model's answer streamed and parsed, the turn stored, the gateway's decide commit), the vendor calls spanned ${median(vendorWindow).toFixed(1)} ms, ` +
          `and the next model request arrived ${median(afterLastCall).toFixed(1)} ms after the last call answered (outcome commits, the results stored, the request built).`,
      ];
      figures.push(f);
    }
    return figures;
  } finally {
    http?.close();
    await polls.end().catch(() => undefined);
    await agent?.close();
  }
}
