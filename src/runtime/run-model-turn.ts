import type Anthropic from '@anthropic-ai/sdk';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { systemClock, type Clock } from '../support/clock';
import type { Logger } from '../support/logger';
import type { ErrorCode } from '../errors/error-codes';
import type { ToolRegistry } from '../gateway/tool-registry';
import { appendLedgerEvents } from '../ledger/ledger.service';
import { costMicros } from '../llm/model-client';
import { ModelStreamFailure, streamTurn, type TurnReply } from '../llm/model-turn';
import { requestUserId } from '../llm/prompt-cache';
import { runThinkingBudget } from '../llm/thinking';
import { toolsForManifest } from '../llm/tool-definitions';
import { Specialist } from '../orgs/specialist.entity';
import type { ToolDefinition } from '../catalog/tool-definition.entity';
import { isUpstreamToolName, toolKey } from '../catalog/tool-key';
import type { Failpoints } from '../recovery/failpoints';
import type { ToolgateMetrics } from '../telemetry/metrics';
import { traceChat } from '../telemetry/trace-model';
import type { AgentRun } from '../runs/agent-run.entity';
import { type RunEvents, retraction } from '../runs/run-events';
import type { RunMessage } from '../runs/run-message.entity';
import { appendMessage, assistantTextLength, isRefused, type StoredBlock } from '../runs/run-messages';
import { addModelUsage, failRun, lockRunning } from '../runs/run-state';
import type { RunStepStatus } from './run-step-status';
import { storedTurn } from './turn-tool-uses';

export interface ModelTurnDeps {
  orm: MikroORM;
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
}

/** What a run's model requests are sent with: its system prompt and the tools it is offered. */
export interface TurnSetup {
  system: string;
  tools: ReturnType<typeof toolsForManifest>;
}

const DEFAULT_SYSTEM =
  'You are a customer support specialist. Use the tools you are given to look up facts; never invent order, product, account or identity data.';

/** The wait before the first retry of a failed stream; each next one waits twice as long. */
const STREAM_RETRY_BASE_MS = 1000;

/**
 * A run's model turns: streamed to run subscribers as they come, retried when a stream
 * fails before any tool_use began, and stored with the run's token counts and cost.
 */
export class ModelTurns {
  /** Streams in flight on this node, so a cancel here stops the model at once. */
  private readonly active = new Map<string, AbortController>();

  constructor(
    private readonly deps: ModelTurnDeps,
    private readonly lifecycle: RunStepStatus,
  ) {
    deps.events.on('status', (event) => {
      if (event.status === 'cancelled') this.active.get(event.runId)?.abort();
    });
  }

  /** The system prompt and the tools the model is offered for this run's turns (`systemPrompt` undefined: read here). */
  async setup(run: AgentRun, systemPrompt: string | null | undefined): Promise<TurnSetup> {
    const [prompt, catalog] = await Promise.all([
      systemPrompt === undefined
        ? this.deps.orm.em
            .fork()
            .findOneOrFail(Specialist, { id: run.specialistId })
            .then((specialist) => specialist.systemPrompt ?? null)
        : systemPrompt,
      this.catalogFor(run),
    ]);
    const tools = toolsForManifest(run.metadata.runtimeManifest.allowedTools, catalog, run.metadata.runtimeManifest.upstreamTools);
    return { system: prompt ?? DEFAULT_SYSTEM, tools };
  }

  /**
   * The catalog's definitions the manifest can offer, in the registry's order. A manifest
   * without an imported (upstream) tool is offered only vendors' catalog tools, which the
   * registry holds in memory: no read. With one, the org's imported tools are read as they
   * are now (the registry's list), since an import may have turned one off.
   */
  private async catalogFor(run: AgentRun): Promise<ToolDefinition[]> {
    const allowed = [...new Set(run.metadata.runtimeManifest.allowedTools)];
    if (!allowed.some(isUpstreamToolName)) {
      const em = () => this.deps.orm.em.fork();
      const found = await Promise.all(
        allowed.map((key) => {
          const dot = key.indexOf('.');
          return dot < 0 ? undefined : this.deps.tools.find(em, run.orgId, key.slice(0, dot), key.slice(dot + 1));
        }),
      );
      const definitions = found.flatMap((tool, i) =>
        tool && toolKey(tool.definition.toolName, tool.definition.action) === allowed[i] ? [tool.definition] : [],
      );
      // A key the catalog does not hold as such: the full list decides, as before.
      if (definitions.length === allowed.length) return definitions.sort(byToolKey);
    }
    return (await this.deps.tools.list(this.deps.orm.em.fork(), run.orgId)).map((tool) => tool.definition);
  }

  /**
   * One streamed model turn; false when the run failed or was cancelled meanwhile. A stream
   * that failed once it had begun (an error event, a stall, a lost connection) before any
   * tool_use began is tried again, up to MODEL_STREAM_RETRIES times with backoff: its partial
   * text is discarded — retracted for runTokens subscribers — and the retry's text streams
   * from the same offset.
   */
  async call(run: AgentRun, messages: RunMessage[], started: () => Promise<boolean>, setup: () => Promise<TurnSetup>): Promise<boolean> {
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
          if (!(await started()) || controller.signal.aborted || (await this.lifecycle.stopped(run.id))) return false;
          if (error instanceof ModelStreamFailure) failures.push(error);
          if (offset > base) this.deps.events.emit('token', retraction(run, base)); // the failed attempt's text is discarded
          const retry = error instanceof ModelStreamFailure && !error.toolUseStarted && failures.length <= streamRetries;
          this.deps.logger.warn(
            { runId: run.id, status: (error as { status?: number }).status, err: error, attempt: failures.length, retry },
            'model request failed',
          );
          if (retry) {
            await clock.sleep(STREAM_RETRY_BASE_MS * 2 ** (failures.length - 1));
            if (controller.signal.aborted || (await this.lifecycle.stopped(run.id))) return false;
            continue;
          }
          const { code, message } = failure(error, failures, this.deps.settings);
          await this.lifecycle.fail(run, code, message);
          return false;
        }
      }
    } finally {
      this.active.delete(run.id);
    }
    this.deps.metrics?.modelTurn(this.deps.settings.name, answer);
    if (!(await started())) return false;
    return this.store(run, messages, answer, base);
  }

  /** The turn stored with the run's usage; a refused turn fails the run with it. False when it was not stored, or ended the run. */
  private async store(run: AgentRun, messages: RunMessage[], answer: TurnReply, base: number): Promise<boolean> {
    const content = storedTurn(answer.content, answer.stopReason, messages);
    const refused = answer.stopReason === 'refusal' ? refusedMessage(answer.refusal) : null;
    try {
      const stored = await this.deps.orm.em.fork().transactional(async (tx) => {
        if (!(await lockRunning(tx, run.id))) return false;
        appendMessage(tx, run, messages.length, 'assistant', content, answer.stopReason);
        await tx.flush();
        await addModelUsage(tx, run.id, answer.usage, costMicros(this.deps.settings, answer.usage));
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
        this.lifecycle.failed(run, true, 'MODEL_REFUSED');
        return false;
      }
      return stored;
    } catch (error) {
      // Another step stored this turn first: it carries on; a database failure retries the job.
      if (error instanceof UniqueConstraintViolationException) return false;
      throw error;
    }
  }
}

/** The registry's list order: by `tool.action`. */
function byToolKey(a: ToolDefinition, b: ToolDefinition): number {
  const [x, y] = [toolKey(a.toolName, a.action), toolKey(b.toolName, b.action)];
  return x < y ? -1 : x > y ? 1 : 0;
}

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
