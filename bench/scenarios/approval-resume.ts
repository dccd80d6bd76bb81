import pg from 'pg';
import { Logger as WorkerLogger, run as runWorker, type Runner } from 'graphile-worker';
import { startAgentServer, type AgentServer } from '../lib/agent-server';
import { createSiblingDatabase, type BenchDatabase } from '../lib/database';
import { GraphQLClient } from '../lib/http-client';
import { figure, type BenchContext, type Figure } from '../lib/measure';
import { GOALS } from '../lib/goals';
import { median, summarize, type RunStats } from '../lib/stats';
import { bounded, envInt, fmtMs, RunMeter, until, wallNow } from '../lib/timing';
import type { MessagesRequest } from '../../src/llm/dev-double/offline-model.types';

/**
 * 6. Approval resume: a run whose invoice.send (high risk → require_expert_approval in the
 * demo org) is waiting for an expert; the expert's `resolveApproval` mutation over HTTP →
 * the resumed run's next model request arriving at the offline model. In between: the
 * mutation's transaction (approval, tool call, ledger, the run step enqueued), the job
 * picked up over LISTEN/NOTIFY, the step (the approved call through the gateway against the
 * instant vendor, the pending tool result filled in), then the model request.
 *
 * Baseline, in the same rounds: bare graphile-worker with src/jobs/worker.ts's settings
 * (own pool of 4, concurrency 2, LISTEN/NOTIFY, poll every 2 s): `add_job` in a transaction,
 * as enqueueRunStep does, → the task function starting. It runs on a database of its own
 * on the same server: two graphile-worker runners with different task lists on one
 * database make each other miss NOTIFY wake-ups (a job then waits for the 2 s poll).
 */
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';
const START = 'mutation($input: StartAgentRunInput!) { startAgentRun(input: $input) { id status } }';
const RESOLVE = `mutation($id: ID!, $decision: ApprovalDecision!, $reason: String) {
  resolveApproval(id: $id, decision: $decision, reason: $reason) { id status toolCallId }
}`;
const BENCH_TASK = 'bench_noop';

export interface ApprovalResumeEnv {
  db: BenchDatabase;
}

/** The resumed request: its last message carries the filled-in tool result. */
function isResumeRequest(request: MessagesRequest): boolean {
  const last = request.messages[request.messages.length - 1];
  return (
    last?.role === 'user' &&
    Array.isArray(last.content) &&
    last.content.some((b) => b.type === 'tool_result' && (b as { content?: unknown }).content !== '')
  );
}

export async function approvalResumeScenario(ctx: BenchContext, env: ApprovalResumeEnv): Promise<Figure[]> {
  const { settings } = ctx;
  const perRound = envInt('BENCH_RESUMES', settings.quick ? 3 : 20);
  ctx.log(`approval resume: ${perRound} resumes per round (resolveApproval → next model request) vs bare graphile-worker add_job → task start`);
  let agent: AgentServer | null = null;
  let http: GraphQLClient | null = null;
  let runner: Runner | null = null;
  let workerPool: pg.Pool | null = null;
  let enqueuePool: pg.Pool | null = null;
  let jobsDb: Awaited<ReturnType<typeof createSiblingDatabase>> | null = null;
  // The bench's own polls (run status, job rows): not through the server's pool.
  const polls = new pg.Pool({ connectionString: env.db.url, max: 2 });
  try {
    agent = await startAgentServer(env.db);
    const { server, seed } = agent;
    ctx.log(`  agent server on ${server.url} (worker, offline model ${agent.model.url})`);
    http = new GraphQLClient(server.url, 2);

    // When each run step starts (on the committing node, or the job picked up): the breakdown of the resume.
    const stepStarts = new Map<string, number>();
    const runtime = server.services.runtime;
    const step = runtime.step.bind(runtime);
    runtime.step = (runId, known) => {
      stepStarts.set(runId, wallNow());
      return step(runId, known);
    };
    // When the step ran the approved call through the gateway (start, end).
    const approvedCalls = new Map<string, [number, number]>();
    const gateway = server.services.gateway;
    const executeApproved = gateway.executeApproved.bind(gateway);
    gateway.executeApproved = async (...args: Parameters<typeof executeApproved>) => {
      const started = wallNow();
      const outcome = await executeApproved(...args);
      approvedCalls.set(outcome.toolCallId, [started, wallNow()]);
      return outcome;
    };
    let onResume: ((at: number) => void) | null = null;
    agent.onModelRequest = (request, at) => {
      if (onResume && isResumeRequest(request)) onResume(at);
    };

    // The baseline's worker and enqueuer.
    jobsDb = await createSiblingDatabase(env.db, 'jobs');
    workerPool = new pg.Pool({ connectionString: jobsDb.url, max: 4 });
    workerPool.on('error', () => undefined);
    workerPool.on('connect', (client) => client.on('error', () => undefined));
    enqueuePool = new pg.Pool({ connectionString: jobsDb.url, max: 2 });
    let onTask: ((n: number, at: number) => void) | null = null;
    runner = await runWorker({
      pgPool: workerPool,
      concurrency: 2,
      noHandleSignals: true,
      pollInterval: 2000,
      taskList: {
        [BENCH_TASK]: async (payload) => {
          onTask?.(Number((payload as { n?: unknown }).n), wallNow());
        },
      },
      logger: new WorkerLogger(() => () => undefined),
    });

    const status = async (runId: string) =>
      (await polls.query<{ status: string }>('select status from agent_runs where id = $1', [runId])).rows[0]?.status;
    const jobsLeft = async (queue: string) =>
      Number((await polls.query<{ n: string }>('select count(*) as n from graphile_worker.jobs where queue_name = $1', [queue])).rows[0].n);
    const bareJobsLeft = async (queue: string) =>
      Number((await enqueuePool!.query<{ n: string }>('select count(*) as n from graphile_worker.jobs where queue_name = $1', [queue])).rows[0].n);

    /** `count` runs paused on their invoice, each step over (its job gone); their approval ids. */
    const prepare = async (count: number): Promise<{ runId: string; approvalId: string }[]> => {
      const runIds: string[] = [];
      for (let i = 0; i < count; i++) {
        const data = await http!.request<{ startAgentRun: { id: string } }>(
          START,
          { input: { specialistId: seed.specialistId, message: INVOICE_REQUEST } },
          seed.keys.client,
        );
        runIds.push(data.startAgentRun.id);
      }
      for (const runId of runIds) {
        await until(
          async () => {
            const s = await status(runId);
            if (s !== 'queued' && s !== 'running' && s !== 'waiting_approval') throw new Error(`run ${runId} is ${s}, not waiting for its approval`);
            return s === 'waiting_approval' && (await jobsLeft(`run:${runId}`)) === 0;
          },
          `run ${runId} to wait for its approval`,
          30_000,
          20,
        );
      }
      const { rows } = await polls.query<{ id: string; run_id: string }>(
        `select id, run_id from approval_requests where status = 'pending' and run_id = any($1::uuid[])`,
        [runIds],
      );
      if (rows.length !== count) throw new Error(`expected ${count} pending approvals, found ${rows.length}`);
      return rows.map((r) => ({ runId: r.run_id, approvalId: r.id }));
    };

    /** Statements from sending resolveApproval to the model request, per resume (BENCH_COUNT_STATEMENTS=1). */
    const statements: number[] = [];
    /** Of which before the mutation answered. */
    const mutationStatements: number[] = [];
    /** One resume: [resolve → model request, → mutation answered, → step started, → approved call started, → approved call done]. */
    const resume = async (runId: string, approvalId: string): Promise<[number, number, number, number, number]> => {
      stepStarts.delete(runId);
      const counted = agent!.statements;
      const modelRequest = new Promise<number>((resolve) => {
        onResume = (at) => {
          if (counted !== null) statements.push(agent!.statements! - counted);
          resolve(at);
        };
      });
      const t0 = wallNow();
      const data = await http!.request<{ resolveApproval: { status: string; toolCallId: string } }>(
        RESOLVE,
        { id: approvalId, decision: 'APPROVE', reason: 'bench' },
        seed.keys.expert,
      );
      const answered = wallNow();
      if (counted !== null) mutationStatements.push(agent!.statements! - counted);
      if (data.resolveApproval.status !== 'approved') throw new Error(`approval ${approvalId} is ${data.resolveApproval.status}`);
      const at = await bounded(modelRequest, `run ${runId}'s resumed model request`, 30_000);
      onResume = null;
      // The run finishes (second model turn) before the next resume: one at a time.
      await until(async () => (await status(runId)) === 'completed' && (await jobsLeft(`run:${runId}`)) === 0, `run ${runId} to complete`, 30_000, 5);
      const call = approvedCalls.get(data.resolveApproval.toolCallId) ?? [Number.NaN, Number.NaN];
      approvedCalls.delete(data.resolveApproval.toolCallId);
      return [at - t0, answered - t0, (stepStarts.get(runId) ?? Number.NaN) - t0, call[0] - t0, call[1] - t0];
    };

    let jobNo = 0;
    /** One bare job: add_job in a transaction (as enqueueRunStep) → the task starting. */
    const bareJob = async (): Promise<number> => {
      const n = ++jobNo;
      const queue = `bench:${n}`;
      const started = new Promise<number>((resolve) => (onTask = (m, at) => m === n && resolve(at)));
      const t0 = wallNow();
      const client = await enqueuePool!.connect();
      try {
        await client.query('begin');
        await client.query(
          `select graphile_worker.add_job($1, json_build_object('n', $2::int), queue_name := $3, job_key := $3, max_attempts := 5)`,
          [BENCH_TASK, n, queue],
        );
        await client.query('commit');
      } finally {
        client.release();
      }
      const at = await bounded(started, `bare job ${n} to start`, 30_000);
      onTask = null;
      await until(async () => (await bareJobsLeft(queue)) === 0, `bare job ${n} to be done`, 30_000, 5);
      return at - t0;
    };

    // Warm-up: a resume and a few bare jobs.
    for (const { runId, approvalId } of await prepare(1)) await resume(runId, approvalId);
    for (let i = 0; i < 3; i++) await bareJob();

    const subject: RunStats[] = [];
    const baseline: RunStats[] = [];
    const answeredP50: number[] = [];
    const stepP50: number[] = [];
    const callStartP50: number[] = [];
    const callDoneP50: number[] = [];
    for (let round = 0; round < settings.runs; round++) {
      const waiting = await prepare(perRound);
      const order = round % 2 === 0 ? ['resume', 'bare'] : ['bare', 'resume'];
      for (const which of order) {
        const meter = new RunMeter().start();
        if (which === 'resume') {
          const latencies: number[] = [];
          const answered: number[] = [];
          const steps: number[] = [];
          const callStarts: number[] = [];
          const callsDone: number[] = [];
          for (const { runId, approvalId } of waiting) {
            const [latency, a, s, c0, c1] = await resume(runId, approvalId);
            latencies.push(latency);
            answered.push(a);
            steps.push(s);
            callStarts.push(c0);
            callsDone.push(c1);
          }
          const stats = meter.finish(latencies, { throughput: Number.NaN });
          subject.push(stats);
          answeredP50.push(median(answered));
          stepP50.push(median(steps));
          callStartP50.push(median(callStarts));
          callDoneP50.push(median(callsDone));
          ctx.log(
            `  approval resume run ${round + 1}/${settings.runs} resolveApproval → model request  p50 ${fmtMs(stats.p50)}  p95 ${fmtMs(stats.p95)}  p99 ${fmtMs(stats.p99)} ms ` +
              `(p50s: mutation answered ${fmtMs(median(answered))}, step started ${fmtMs(median(steps))}, approved call ${fmtMs(median(callStarts))} → ${fmtMs(median(callsDone))} ms)  rss ${stats.peakRssMb.toFixed(0)} MB  load ${stats.loadAvg1m.toFixed(1)}`,
          );
        } else {
          const latencies: number[] = [];
          for (let i = 0; i < perRound; i++) latencies.push(await bareJob());
          const stats = meter.finish(latencies, { throughput: Number.NaN });
          baseline.push(stats);
          ctx.log(
            `  approval resume run ${round + 1}/${settings.runs} bare add_job → task start        p50 ${fmtMs(stats.p50)}  p95 ${fmtMs(stats.p95)}  p99 ${fmtMs(stats.p99)} ms  load ${stats.loadAvg1m.toFixed(1)}`,
          );
        }
      }
    }

    const f = figure(
      {
        id: 'approval.resume',
        section: "Approval resume — resolveApproval → the resumed run's next model request",
        name: 'resolveApproval → model request',
        concurrency: 1,
        unit: 'ops/s',
        concurrencyLabel: 'resumes at a time',
        subject: summarize(subject),
        baselineName: 'bare graphile-worker add_job → task start',
        baseline: summarize(baseline),
        note: `${perRound} resumes per round, one at a time; instant vendor; job worker with src/jobs/worker.ts's settings`,
        extra: {
          mutationAnsweredP50: median(answeredP50),
          stepStartedP50: median(stepP50),
          approvedCallStartedP50: median(callStartP50),
          approvedCallDoneP50: median(callDoneP50),
          ...(statements.length ? { statementsPerResume: median(statements), statementsInMutation: median(mutationStatements) } : {}),
        },
      },
      ({ subject: s }) => [
        { label: `p50 ≤ ${GOALS.resumeP50Ms} ms`, short: `p50 ≤ ${GOALS.resumeP50Ms} ms`, pass: s.p50 <= GOALS.resumeP50Ms },
        { label: `p99 ≤ ${GOALS.resumeP99Ms} ms`, short: `p99 ≤ ${GOALS.resumeP99Ms} ms`, pass: s.p99 <= GOALS.resumeP99Ms },
      ],
    );
    f.details = [
      `Breakdown (medians of per-round p50s, from sending resolveApproval): the mutation answered after ${median(answeredP50).toFixed(1)} ms, ` +
        `the run's step started (job picked up) after ${median(stepP50).toFixed(1)} ms, the approved call ran through the gateway from ${median(callStartP50).toFixed(1)} ` +
        `to ${median(callDoneP50).toFixed(1)} ms (instant vendor), and the model request arrived after ${f.subject.p50.toFixed(1)} ms ` +
        `(the tool result stored, the messages reloaded and the request built in between).`,
      `The baseline is the job-queue hop alone: the resume's HTTP request, its transaction and the step's database work are not in it.`,
      ...(statements.length
        ? [
            `SQL statements through the ORM from resolveApproval to the model request (BENCH_COUNT_STATEMENTS=1; graphile-worker's own not counted): median ${median(statements)}, of which ${median(mutationStatements)} before the mutation answered.`,
          ]
        : []),
    ];
    return [f];
  } finally {
    if (runner) {
      await runner.stop().catch(() => undefined);
      await runner.promise.catch(() => undefined);
    }
    await workerPool?.end().catch(() => undefined);
    await enqueuePool?.end().catch(() => undefined);
    await polls.end().catch(() => undefined);
    await jobsDb?.drop().catch((error: unknown) => ctx.log(`could not drop ${jobsDb!.name}: ${error}`));
    http?.close();
    await agent?.close();
  }
}
