import type Anthropic from '@anthropic-ai/sdk';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { systemClock, type Clock } from '../clock';
import type { Logger } from '../logger';
import type { OutcomeWriter, ToolGateway } from '../gateway/gateway.service';
import type { SqlRunner } from '../db/raw-transaction';
import type { ToolCallRequest } from '../gateway/gateway.types';
import { ToolCall } from '../gateway/tool-call.entity';
import type { ToolRegistry } from '../gateway/tool-registry';
import { Specialist } from '../orgs/specialist.entity';
import { runtimeCaller } from '../auth/caller';
import { AppError } from '../errors/app-error';
import type { ErrorCode } from '../errors/error-codes';
import { appendLedgerEvents } from '../ledger/ledger.service';
import { costMicros } from '../llm/model-client';
import { requestUserId } from '../llm/prompt-cache';
import { runThinkingBudget } from '../llm/thinking';
import { parseModelToolName, toolsForManifest } from '../llm/tool-definitions';
import { ModelStreamFailure, streamTurn, type TurnReply } from '../llm/model-turn';
import { AgentRun } from './agent-run.entity';
import type { Failpoints } from '../recovery/failpoints';
import { completeRun, failRun, startRun as startRunState } from './run-state';
import type { RunMessage } from './run-message.entity';
import { type RunEvents, retraction } from './run-events';
import { appendMessage, assistantTextLength, isPending, isRefused, loadMessages, pendingCallId, toolUseNote, type StoredBlock } from './run-messages';
import { refusedKeyResult, resultBlock, roundLimitResult, storedOutcome } from './tool-results';
import { storedTurn } from './turn-tool-uses';
import { ToolCallLimits } from './tool-call-limits';
import type { ToolgateMetrics } from '../telemetry/metrics';
import { traceChat } from '../telemetry/trace-model';

export interface AgentRuntimeDeps {
  orm: MikroORM;
  gateway: ToolGateway;
  client: Anthropic;
  settings: Config['model'];
  events: RunEvents;
  logger: Logger;
  failpoints: Failpoints;
  /** The gateway's catalog: the model is offered exactly the tools the gateway validates against. */
  tools: ToolRegistry;
  /** Time to first token and tokens per model (src/telemetry/metrics.ts). */
  metrics?: ToolgateMetrics;
  /** The model stream's idle timeout and the wait before a turn is retried (default: the system clock). */
  clock?: Clock;
  /** Tool calls run at once: of one assistant message, and on this node (default 4 and 32). */
  toolConcurrency?: { perRun: number; perNode: number };
}

/** What the request that committed a step (and claimed it for this node) already holds about the run. */
export interface KnownRun {
  run: AgentRun;
  orgSuspended: boolean;
  /** The run's messages as committed. */
  messages: RunMessage[];
  /** Its specialist's system prompt (null: the default). */
  systemPrompt: string | null;
}

interface TurnSetup {
  system: string;
  tools: ReturnType<typeof toolsForManifest>;
}

const FINISHED = new Set(['completed', 'failed', 'cancelled']);
const DEFAULT_SYSTEM =
  'You are a customer support specialist. Use the tools you are given to look up facts; never invent order, product, account or identity data.';

/**
 * Layer 2: advances one run as far as it can in one job — model turn, tool calls through
 * the gateway, repeat — and stops when the run ends or waits for a human. All state lives
 * in PostgreSQL (messages, tool calls, approvals), so the next step may run on any node
 * after any restart; a tool_use is executed through the gateway with its id, so a
 * repeated step never runs a call twice.
 */
export class AgentRuntime {
  /** Streams in flight on this node, so a cancel here stops the model at once. */
  private readonly active = new Map<string, AbortController>();
  private readonly tools: ToolRegistry;
  private readonly limits: ToolCallLimits;

  constructor(private readonly deps: AgentRuntimeDeps) {
    this.tools = deps.tools;
    this.limits = new ToolCallLimits(deps.toolConcurrency?.perRun ?? 4, deps.toolConcurrency?.perNode ?? 32);
    deps.events.on('status', (event) => {
      if (event.status === 'cancelled') this.active.get(event.runId)?.abort();
    });
  }

  /**
   * One step. `known`: what the request that committed the step (and claimed it for this
   * node) already holds, so its first model request needs no read before it.
   */
  async step(runId: string, known?: KnownRun): Promise<void> {
    const loaded = known ?? (await this.loadRun(runId));
    if (!loaded) return;
    const { run } = loaded;
    if (run.driver !== 'internal' || FINISHED.has(run.status) || run.status === 'waiting_approval') return;
    if (loaded.orgSuspended) return this.failSuspended(run);
    // A queued run's first model request does not wait for the run.started transaction:
    // both go out together, and the reply is stored only once the run is running (it is
    // dropped, and the stream aborted, if the run was cancelled meanwhile).
    let starting: Promise<boolean> | null = run.status === 'queued' ? this.transition(run, 'running') : null;
    starting?.catch(() => undefined); // awaited below; a failure surfaces there
    const started = async (): Promise<boolean> => {
      if (!starting) return true;
      const ok = await starting;
      starting = null;
      return ok;
    };
    // The system prompt and the tool list, read once per step and while other work runs.
    let turn: Promise<TurnSetup> | null = null;
    const setup = (): Promise<TurnSetup> => {
      if (!turn) {
        turn = this.turnSetup(run, known?.systemPrompt);
        turn.catch(() => undefined); // awaited by callModel; a failure surfaces there
      }
      return turn;
    };
    if (known) setup();

    // Messages and status as just read (or committed): the first pass re-reads neither.
    let messages: RunMessage[] | null = known?.messages ?? null;
    let fresh = true;
    for (;;) {
      messages ??= await loadMessages(this.deps.orm.em.fork(), runId);
      if (!fresh && !starting && (await this.stopped(runId))) return;
      fresh = false;
      const last = messages[messages.length - 1];
      if (!last) {
        if (await started()) await this.fail(run, 'MODEL_ERROR', 'The run has no message to answer');
        return;
      }
      const modelTurn = last.role !== 'assistant' && !(last.content as StoredBlock[]).some(isPending);
      if (!modelTurn && !(await started())) return;

      if (last.role === 'assistant') {
        const toolUses = (last.content as StoredBlock[]).filter((b) => b.type === 'tool_use');
        if (toolUses.length === 0 && last.stopReason === 'pause_turn') {
          // A paused turn is sent back as it is, and the model continues it (bounded as tool rounds are).
          const limit = this.roundLimit(messages);
          if (limit) return this.failRounds(run, limit);
          if (!(await this.callModel(run, messages, started, setup))) return;
          messages = null;
          continue;
        }
        if (toolUses.length === 0) {
          await this.transition(run, 'completed');
          return;
        }
        const limit = this.roundLimit(messages);
        if (limit) return this.failRounds(run, limit, { toolUses, position: messages.length });
        if (!(await this.runTools(run, toolUses, messages.length))) return;
        messages = null;
        continue;
      }
      if ((last.content as StoredBlock[]).some(isPending)) {
        setup(); // read while the approved calls run
        const filled = await this.fillPending(run, last);
        if (filled === 'wait') return;
        if (filled === 'reload') {
          messages = null;
          continue;
        }
        // Filled here, with the run found running in the same transaction: the next request is built from memory.
        if (!filled.running && !starting) return;
        last.content = filled.content;
        fresh = true;
        continue;
      }
      const limit = this.roundLimit(messages);
      if (limit) return this.failRounds(run, limit);
      if (!(await this.callModel(run, messages, started, setup))) return;
      messages = null;
    }
  }

  /** The run and whether its org is suspended, in one read. */
  private async loadRun(runId: string): Promise<{ run: AgentRun; orgSuspended: boolean } | null> {
    const em = this.deps.orm.em.fork();
    const [row] = await em.execute<({ org_suspended: boolean } & Record<string, unknown>)[]>(
      'select r.*, o.suspended_at is not null as org_suspended from agent_runs r join orgs o on o.id = r.org_id where r.id = ?',
      [runId],
    );
    if (!row) return null;
    const { org_suspended: orgSuspended, ...columns } = row;
    return { run: em.map(AgentRun, columns), orgSuspended };
  }

  /** The system prompt and the tools the model is offered for this run's turns. */
  private async turnSetup(run: AgentRun, systemPrompt: string | null | undefined): Promise<TurnSetup> {
    const em = this.deps.orm.em.fork();
    const [prompt, catalog] = await Promise.all([
      systemPrompt === undefined
        ? this.deps.orm.em
            .fork()
            .findOneOrFail(Specialist, { id: run.specialistId })
            .then((specialist) => specialist.systemPrompt ?? null)
        : systemPrompt,
      this.tools.list(em, run.orgId),
    ]);
    const tools = toolsForManifest(
      run.metadata.runtimeManifest.allowedTools,
      catalog.map((tool) => tool.definition),
      run.metadata.runtimeManifest.upstreamTools,
    );
    return { system: prompt ?? DEFAULT_SYSTEM, tools };
  }

  /**
   * Fails the run at a tool-round limit (per message or per run). The last turn's tool_uses, never run, are answered
   * in the same transaction (not run, is_error), so that the conversation a posted message
   * continues stays one the Messages API takes.
   */
  private async failRounds(run: AgentRun, message: string, unanswered?: { toolUses: StoredBlock[]; position: number }): Promise<void> {
    const code = 'TOOL_ROUND_LIMIT';
    const changed = await this.deps.orm.em.fork().transactional(async (tx) => {
      if (!(await failRun(tx, run, code, message))) return false;
      if (unanswered) {
        const results = unanswered.toolUses.map((use) => roundLimitResult(String(use.id)));
        await appendToolResults(tx, run, unanswered.position, results);
      }
      return true;
    });
    if (changed) this.deps.events.emit('status', { orgId: run.orgId, runId: run.id, status: 'failed', errorCode: code });
  }

  /** Which tool-round limit the conversation went past (its failure message), if any: per message, then per run. */
  private roundLimit(messages: RunMessage[]): string | null {
    const { maxToolRounds, maxRunToolRounds } = this.deps.settings;
    if (toolRoundsSinceUserText(messages) > maxToolRounds) return `The model used more than ${maxToolRounds} tool rounds for one message`;
    if (toolRounds(messages) > maxRunToolRounds) return `The model used more than ${maxRunToolRounds} tool rounds in this run`;
    return null;
  }

  /**
   * One streamed model turn; false when the run failed or was cancelled meanwhile. A stream
   * that failed once it had begun (an error event, a stall, a lost connection) before any
   * tool_use began is tried again, up to MODEL_STREAM_RETRIES times with backoff: its partial
   * text is discarded — retracted for runTokens subscribers — and the retry's text streams
   * from the same offset.
   */
  private async callModel(run: AgentRun, messages: RunMessage[], started: () => Promise<boolean>, setup: () => Promise<TurnSetup>): Promise<boolean> {
    const { system, tools } = await setup();
    const base = assistantTextLength(messages);
    const controller = new AbortController();
    this.active.set(run.id, controller);
    const clock = this.deps.clock ?? systemClock;
    const { name: model, maxTokens, streamRetries, streamIdleTimeoutMs } = this.deps.settings;
    const failures: ModelStreamFailure[] = [];
    const thinkingBudgetTokens = runThinkingBudget(run.metadata);
    const traced = { maxTokens: maxTokens + (thinkingBudgetTokens ?? 0) }; // the max_tokens sent
    let answer: TurnReply;
    try {
      for (;;) {
        let offset = base;
        let first = true; // the attempt's first delta replaces whatever text subscribers hold from base on
        try {
          const reply = traceChat({ model, ...traced, runId: run.id, orgId: run.orgId, correlationId: run.correlationId }, () =>
            streamTurn(this.deps.client, {
              model,
              maxTokens,
              thinkingBudgetTokens,
              userId: requestUserId(run.orgId, run.id),
              system,
              tools,
              messages: messages.filter((m) => !isRefused(m)).map((m) => ({ role: m.role, content: m.content as StoredBlock[] })),
              signal: controller.signal,
              onText: (delta) => {
                this.deps.failpoints.hit('during_model_stream');
                this.deps.events.emit('token', { orgId: run.orgId, runId: run.id, offset, text: delta, ...(first ? { retract: true } : {}) });
                first = false;
                offset += delta.length;
              },
              idleTimeoutMs: streamIdleTimeoutMs,
              clock,
            }),
          );
          // A run that could not start (cancelled meanwhile) stops its stream at once.
          void started().then(
            (ok) => ok || controller.abort(),
            () => controller.abort(),
          );
          answer = await reply;
          break;
        } catch (error) {
          if (!(await started()) || controller.signal.aborted || (await this.stopped(run.id))) return false;
          if (error instanceof ModelStreamFailure) failures.push(error);
          if (offset > base) this.deps.events.emit('token', retraction(run, base)); // the failed attempt's text is discarded
          const retry = error instanceof ModelStreamFailure && !error.toolUseStarted && failures.length <= streamRetries;
          this.deps.logger.warn(
            { runId: run.id, status: (error as { status?: number }).status, err: error, attempt: failures.length, retry },
            'model request failed',
          );
          if (retry) {
            await clock.sleep(STREAM_RETRY_BASE_MS * 2 ** (failures.length - 1));
            if (controller.signal.aborted || (await this.stopped(run.id))) return false;
            continue;
          }
          const { code, message } = failure(error, failures, this.deps.settings);
          await this.fail(run, code, message);
          return false;
        }
      }
    } finally {
      this.active.delete(run.id);
    }
    this.deps.metrics?.modelTurn(this.deps.settings.name, answer);
    const content = storedTurn(answer.content, answer.stopReason, messages);
    if (!(await started())) return false;
    const refused = answer.stopReason === 'refusal' ? refusedMessage(answer.refusal) : null;
    try {
      const stored = await this.deps.orm.em.fork().transactional(async (tx) => {
        if (!(await this.lockActive(tx, run.id))) return false;
        appendMessage(tx, run, messages.length, 'assistant', content, answer.stopReason);
        await tx.flush();
        const { usage } = answer;
        await tx.execute(
          `update agent_runs set input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
                  cache_creation_input_tokens = cache_creation_input_tokens + ?, cache_read_input_tokens = cache_read_input_tokens + ?,
                  llm_cost_micros = llm_cost_micros + ?, updated_at = now() where id = ?`,
          [
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_creation_input_tokens,
            usage.cache_read_input_tokens,
            costMicros(this.deps.settings, usage),
            run.id,
          ],
        );
        // A message boundary for run subscribers; the text itself stays in run_messages.
        await appendLedgerEvents(tx, [
          {
            orgId: run.orgId,
            type: 'run.message_added',
            runId: run.id,
            resourceId: run.id,
            metadata: { position: messages.length, role: 'assistant', stopReason: answer.stopReason, outputTokens: answer.usage.output_tokens },
          },
        ]);
        // A refused turn ends the run, with the turn that says so.
        if (refused) await failRun(tx, run, 'MODEL_REFUSED', refused);
        return true;
      });
      if (stored && refused) {
        this.deps.events.emit('token', retraction(run, base)); // the refused turn's text is not the run's
        this.deps.events.emit('status', { orgId: run.orgId, runId: run.id, status: 'failed', errorCode: 'MODEL_REFUSED' });
        return false;
      }
      return stored;
    } catch (error) {
      // Another step stored this turn first: it carries on; a database failure retries the job.
      if (error instanceof UniqueConstraintViolationException) return false;
      throw error;
    }
  }

  /**
   * Every tool_use of the turn through the gateway, each under its own id, concurrently
   * (RUN_TOOL_CONCURRENCY, NODE_TOOL_CONCURRENCY); false when the run must wait (a human, or
   * reconciliation). A tool_use refused when the turn was stored (turn-tool-uses.ts) goes with
   * its refusal: the gateway records it and runs nothing. The results are stored once every
   * call settled, in the message's order; a failure is judged in that order too, as a loop
   * would have met it.
   */
  private async runTools(run: AgentRun, toolUses: StoredBlock[], position: number): Promise<boolean> {
    const settled = await this.limits.all(toolUses, (use) => this.deps.gateway.execute(this.toolCallRequest(run, use)), haltsStep);
    const results: StoredBlock[] = [];
    let waits = false;
    for (const [index, result] of settled.entries()) {
      const toolUseId = String(toolUses[index].id);
      if ('skipped' in result) return false; // after a halt, which an earlier result already answered
      if (!result.ok) {
        const { error } = result;
        if (error instanceof AppError && error.code === 'RUN_NOT_ACTIVE') return false; // cancelled meanwhile
        if (error instanceof AppError && error.code === 'ORG_SUSPENDED') return this.failSuspended(run).then(() => false);
        // The id names another call of the run (the gateway recorded the refusal): the model is told, nothing ran.
        if (error instanceof AppError && error.code === 'IDEMPOTENCY_KEY_REUSED') {
          results.push(refusedKeyResult(toolUseId));
          continue;
        }
        throw error;
      }
      results.push(resultBlock(toolUseId, result.value, parseModelToolName(String(toolUses[index].name))?.toolName));
      // An approved call (its approval came before this step) runs next, in fillPending.
      if (result.value.status === 'waiting_approval' || result.value.status === 'running') waits = true;
    }
    await this.deps.orm.em.fork().transactional((tx) => appendToolResults(tx, run, position, results));
    return !waits;
  }

  private toolCallRequest(run: AgentRun, use: StoredBlock): ToolCallRequest {
    const name = parseModelToolName(String(use.name)) ?? { toolName: String(use.name), action: '' };
    const note = toolUseNote(use);
    return {
      runId: run.id,
      ...name,
      params: note && 'rawInput' in note ? note.rawInput : use.input,
      correlationId: run.correlationId,
      toolUseId: String(use.id),
      caller: runtimeCaller(run.orgId),
      ...(note ? { refusal: note.refusal } : {}),
    };
  }

  /**
   * Completes tool results that waited for approval: 'wait' while any still waits, 'reload'
   * when a concurrent step filled them first; else the content stored here and whether the
   * run was still running in that transaction. The approved calls before the first one still
   * waiting run concurrently, as runTools runs a turn's calls. A lone approved call stores the
   * results in the transaction that records its outcome.
   */
  private async fillPending(run: AgentRun, message: RunMessage): Promise<'wait' | 'reload' | FilledResults> {
    const em = this.deps.orm.em.fork();
    const content = [...(message.content as StoredBlock[])];
    const approved: { index: number; call: ToolCall }[] = [];
    let waits = false;
    for (const [index, block] of content.entries()) {
      if (!isPending(block)) continue;
      const call = await em.findOneOrFail(ToolCall, { id: pendingCallId(block) }, { refresh: true });
      if (call.status === 'waiting_approval' || call.status === 'running') {
        waits = true;
        break;
      }
      if (call.status === 'approved') approved.push({ index, call });
      else content[index] = resultBlock(String(block.tool_use_id), storedOutcome(call), call.toolName);
    }
    let storedWithOutcome: FilledResults | 'reload' | null = null;
    const lone = !waits && approved.length === 1;
    const settled = await this.limits.all(
      approved,
      ({ index, call }) => {
        const toolUseId = String(content[index].tool_use_id);
        const storeWith: OutcomeWriter | undefined = lone
          ? async (tx, outcome) => {
              content[index] = resultBlock(toolUseId, outcome, call.toolName);
              storedWithOutcome = await storeResults(tx, message.id, content);
            }
          : undefined;
        return this.deps.gateway.executeApproved(call.id, runtimeCaller(run.orgId), storeWith);
      },
      () => false,
    );
    for (const [n, result] of settled.entries()) {
      if ('skipped' in result) continue; // never: nothing halts this batch
      if (!result.ok) {
        if (result.error instanceof AppError && result.error.code === 'ORG_SUSPENDED') return this.failSuspended(run).then(() => 'wait' as const);
        throw result.error;
      }
      const outcome = result.value;
      if (outcome.replayed && (outcome.status === 'running' || outcome.status === 'approved')) waits = true;
      const { index, call } = approved[n];
      content[index] = resultBlock(String(content[index].tool_use_id), outcome, call.toolName);
    }
    if (waits) return 'wait';
    if (storedWithOutcome) return storedWithOutcome;
    return this.deps.orm.em.fork().transactional((tx) => storeResults(tx, message.id, content));
  }

  /** True when this step made the transition (false: the run was no longer in the expected status). */
  private async transition(run: AgentRun, status: 'running' | 'completed'): Promise<boolean> {
    const changed = await this.deps.orm.em.fork().transactional((tx) => (status === 'running' ? startRunState(tx, run) : completeRun(tx, run)));
    // The loaded entity is not touched: only run-state writes a status.
    if (changed) this.deps.events.emit('status', { orgId: run.orgId, runId: run.id, status });
    return changed;
  }

  private async fail(run: AgentRun, code: ErrorCode, message: string): Promise<void> {
    const changed = await this.deps.orm.em.fork().transactional((tx) => failRun(tx, run, code, message));
    if (changed) this.deps.events.emit('status', { orgId: run.orgId, runId: run.id, status: 'failed', errorCode: code });
  }

  /** A suspended org's run calls neither the model nor a tool: it fails (postMessage continues it once resumed). */
  private failSuspended(run: AgentRun): Promise<void> {
    return this.fail(run, 'ORG_SUSPENDED', 'The organization is suspended');
  }

  /** Locks the run row; true while it may still take model output. */
  private async lockActive(tx: EntityManager, runId: string): Promise<boolean> {
    const [row] = await tx.execute<{ status: string }[]>('select status from agent_runs where id = ? for no key update', [runId]);
    return row?.status === 'running';
  }

  private async stopped(runId: string): Promise<boolean> {
    const [row] = await this.deps.orm.em.fork().execute<{ status: string }[]>('select status from agent_runs where id = ?', [runId]);
    return row?.status !== 'running';
  }
}

interface FilledResults {
  content: StoredBlock[];
  running: boolean;
}

/** The user message of a turn's tool results, and its message boundary for run subscribers. */
async function appendToolResults(tx: EntityManager, run: AgentRun, position: number, results: StoredBlock[]): Promise<void> {
  appendMessage(tx, run, position, 'user', results);
  await tx.flush();
  await appendLedgerEvents(tx, [
    {
      orgId: run.orgId,
      type: 'run.message_added',
      runId: run.id,
      resourceId: run.id,
      metadata: { position, role: 'user', toolResults: results.length },
    },
  ]);
}

/** Only a message still holding pending results is filled in: a concurrent step's work stands. */
async function storeResults(tx: SqlRunner, messageId: string, content: StoredBlock[]): Promise<FilledResults | 'reload'> {
  const [current] = await tx.execute<{ content: StoredBlock[]; run_status: string }[]>(
    'select m.content, r.status as run_status from run_messages m join agent_runs r on r.id = m.run_id where m.id = ? for update of m',
    [messageId],
  );
  if (!current?.content.some(isPending)) return 'reload';
  await tx.execute('update run_messages set content = ?::jsonb where id = ?', [JSON.stringify(content), messageId]);
  return { content, running: current.run_status === 'running' };
}

/** A model turn that asked for tools, or paused (a server-tool loop the model continues): each is a round. */
const isRound = (message: RunMessage): boolean =>
  message.role === 'assistant' && (message.stopReason === 'pause_turn' || (message.content as StoredBlock[]).some((b) => b.type === 'tool_use'));

/** Rounds since the user last wrote text. */
function toolRoundsSinceUserText(messages: RunMessage[]): number {
  let rounds = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const blocks = messages[i].content as StoredBlock[];
    if (messages[i].role === 'user' && blocks.some((b) => b.type === 'text')) break;
    if (isRound(messages[i])) rounds += 1;
  }
  return rounds;
}

/** A failure after which a step runs none of its turn's remaining calls: the run stopped, its org was suspended, or an error the job retries. */
const haltsStep = (error: unknown): boolean => !(error instanceof AppError && error.code === 'IDEMPOTENCY_KEY_REUSED');

/** The wait before the first retry of a failed stream; each next one waits twice as long. */
const STREAM_RETRY_BASE_MS = 1000;

/** How a model request failed, said as it happened: the code and message the run fails with. */
function failure(error: unknown, streams: ModelStreamFailure[], settings: Config['model']): { code: ErrorCode; message: string } {
  if (error instanceof ModelStreamFailure) {
    const what = streams
      .map((f) =>
        f.kind === 'error' ? f.errorType : f.kind === 'stalled' ? `stalled (no event for ${settings.streamIdleTimeoutMs} ms)` : 'interrupted',
      )
      .join(', ');
    const times = streams.length === 1 ? 'once' : `${streams.length} times`;
    const code = error.kind === 'stalled' ? 'MODEL_STREAM_STALLED' : 'MODEL_UNAVAILABLE';
    const after = error.toolUseStarted ? '; the last failure came after a tool_use had begun, so that turn was not retried' : '';
    return { code, message: `The model stream failed ${times}: ${what}${after}` };
  }
  const status = (error as { status?: number }).status;
  const sdk = `the SDK retries up to ${settings.maxRetries} times`;
  if (status === undefined) return { code: 'MODEL_UNAVAILABLE', message: `The model could not be reached (${sdk})` };
  if (status === 429 || status >= 500) return { code: 'MODEL_UNAVAILABLE', message: `The model is unavailable: it answered HTTP ${status} (${sdk})` };
  return { code: 'MODEL_ERROR', message: `The model refused the request (HTTP ${status})` };
}

/** What a refused run says: that the model declined, and the API's explanation where it gave one. */
function refusedMessage(refusal: TurnReply['refusal']): string {
  const why = refusal?.explanation ?? (refusal?.category ? `category ${refusal.category}` : null);
  return `The model declined to answer this conversation (stop_reason refusal)${why ? `: ${why}` : ''}; its partial reply was discarded`;
}

/** Rounds in the whole run. */
function toolRounds(messages: RunMessage[]): number {
  return messages.filter(isRound).length;
}
