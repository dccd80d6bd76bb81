import type { KnownRun } from '../runs/step-batches';
import type { ToolGateway } from '../gateway/gateway.service';
import type { RunMessage } from '../runs/run-message.entity';
import { isPending, loadMessages, type StoredBlock } from '../runs/run-messages';
import { type ModelTurnDeps, ModelTurns, type TurnSetup } from './run-model-turn';
import { roundLimit } from './round-limits';
import { RunStepStatus } from './run-step-status';
import { ToolCallLimits } from './tool-call-limits';
import { ToolRounds } from './tool-rounds';

export interface AgentRuntimeDeps extends ModelTurnDeps {
  gateway: ToolGateway;
  /** Tool calls run at once: of one assistant message, and on this node (default 4 and 32). */
  toolConcurrency?: { perRun: number; perNode: number };
}

const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/**
 * Layer 2: advances one run as far as it can in one job — model turn, tool calls through
 * the gateway, repeat — and stops when the run ends or waits for a human. All state lives
 * in PostgreSQL (messages, tool calls, approvals), so the next step may run on any node
 * after any restart; a tool_use is executed through the gateway with its id, so a
 * repeated step never runs a call twice. The loop is here; the model turn is
 * run-model-turn.ts, the tool calls tool-rounds.ts, the run's status run-step-status.ts.
 */
export class AgentRuntime {
  private readonly lifecycle: RunStepStatus;
  private readonly model: ModelTurns;
  private readonly rounds: ToolRounds;

  constructor(private readonly deps: AgentRuntimeDeps) {
    this.lifecycle = new RunStepStatus(deps);
    this.model = new ModelTurns(deps, this.lifecycle);
    const limits = new ToolCallLimits(deps.toolConcurrency?.perRun ?? 4, deps.toolConcurrency?.perNode ?? 32);
    this.rounds = new ToolRounds({ orm: deps.orm, gateway: deps.gateway, limits, lifecycle: this.lifecycle });
  }

  /**
   * One step. `known`: what the request that committed the step (and claimed it for this
   * node) already holds, so its first model request needs no read before it.
   */
  async step(runId: string, known?: KnownRun): Promise<void> {
    const loaded = known ?? (await this.lifecycle.load(runId));
    if (!loaded) return;
    const { run } = loaded;
    if (run.driver !== 'internal' || FINISHED.has(run.status) || run.status === 'waiting_approval') return;
    if (loaded.orgSuspended) return this.lifecycle.failSuspended(run);
    // A queued run's first model request does not wait for the run.started transaction:
    // both go out together, and the reply is stored only once the run is running (it is
    // dropped, and the stream aborted, if the run was cancelled meanwhile).
    let starting: Promise<boolean> | null = run.status === 'queued' ? this.lifecycle.transition(run, 'running') : null;
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
        turn = this.model.setup(run, loaded.systemPrompt);
        turn.catch(() => undefined); // awaited by the model turn; a failure surfaces there
      }
      return turn;
    };
    if (known) setup();

    // Messages and status as just read with the run (or committed): the first pass re-reads neither.
    let messages: RunMessage[] | null = loaded.messages;
    // The pending results' calls as loaded with those messages: for the first pass only.
    let pendingCalls = 'pendingCalls' in loaded ? loaded.pendingCalls : undefined;
    let fresh = true;
    for (;;) {
      if (!messages) {
        messages = await loadMessages(this.deps.orm.em.fork(), runId);
        pendingCalls = undefined;
      }
      if (!fresh && !starting && (await this.lifecycle.stopped(runId))) return;
      fresh = false;
      const last = messages[messages.length - 1];
      if (!last) {
        if (await started()) await this.lifecycle.fail(run, 'MODEL_ERROR', 'The run has no message to answer');
        return;
      }
      const modelTurn = last.role !== 'assistant' && !(last.content as StoredBlock[]).some(isPending);
      if (!modelTurn && !(await started())) return;

      if (last.role === 'assistant') {
        const toolUses = (last.content as StoredBlock[]).filter((b) => b.type === 'tool_use');
        if (toolUses.length === 0 && last.stopReason === 'pause_turn') {
          // A paused turn is sent back as it is, and the model continues it (bounded as tool rounds are).
          const limit = roundLimit(messages, this.deps.settings);
          if (limit) return this.lifecycle.failRounds(run, limit);
          if (!(await this.model.call(run, messages, started, setup))) return;
          messages = null;
          continue;
        }
        if (toolUses.length === 0) {
          await this.lifecycle.transition(run, 'completed');
          return;
        }
        const limit = roundLimit(messages, this.deps.settings);
        if (limit) return this.lifecycle.failRounds(run, limit, { toolUses, position: messages.length });
        if (!(await this.rounds.runTools(run, toolUses, messages.length))) return;
        messages = null;
        continue;
      }
      if ((last.content as StoredBlock[]).some(isPending)) {
        setup(); // read while the approved calls run
        const filled = await this.rounds.fillPending(run, last, pendingCalls);
        pendingCalls = undefined;
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
      const limit = roundLimit(messages, this.deps.settings);
      if (limit) return this.lifecycle.failRounds(run, limit);
      if (!(await this.model.call(run, messages, started, setup))) return;
      messages = null;
    }
  }
}
