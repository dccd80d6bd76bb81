import type { MikroORM } from '@mikro-orm/postgresql';
import type { OutcomeWriter, ToolGateway } from '../gateway/gateway.service';
import type { ToolCallRequest } from '../gateway/gateway.types';
import { ToolCall } from '../gateway/tool-call.entity';
import { runtimeCaller } from '../auth/caller';
import { AppError } from '../errors/app-error';
import { parseModelToolName } from '../llm/tool-definitions';
import type { AgentRun } from '../runs/agent-run.entity';
import type { RunMessage } from '../runs/run-message.entity';
import { isPending, pendingCallId, toolUseNote, type StoredBlock } from '../runs/run-messages';
import type { RunStepStatus } from './run-step-status';
import type { ToolCallLimits } from './tool-call-limits';
import { refusedKeyResult, resultBlock, storedOutcome } from '../runs/tool-results';
import { appendToolResults, type FilledResults, storeResults } from './tool-round-results';

/** A failure after which a step runs none of its turn's remaining calls: the run stopped, its org was suspended, or an error the job retries. */
const haltsStep = (error: unknown): boolean => !(error instanceof AppError && error.code === 'IDEMPOTENCY_KEY_REUSED');

/**
 * A turn's tool calls through the gateway, and the results the next model request reads:
 * the calls of a new turn (runTools), and the results that waited for approval (fillPending).
 */
export class ToolRounds {
  constructor(private readonly deps: { orm: MikroORM; gateway: ToolGateway; limits: ToolCallLimits; lifecycle: RunStepStatus }) {}

  /**
   * Every tool_use of the turn through the gateway, each under its own id, concurrently
   * (RUN_TOOL_CONCURRENCY, NODE_TOOL_CONCURRENCY); false when the run must wait (a human, or
   * reconciliation). A tool_use refused when the turn was stored (turn-tool-uses.ts) goes with
   * its refusal: the gateway records it and runs nothing. The results are stored once every
   * call settled, in the message's order; a failure is judged in that order too, as a loop
   * would have met it.
   */
  async runTools(run: AgentRun, toolUses: StoredBlock[], position: number): Promise<boolean> {
    const settled = await this.deps.limits.all(toolUses, (use) => this.deps.gateway.execute(toolCallRequest(run, use)), haltsStep);
    const results: StoredBlock[] = [];
    let waits = false;
    for (const [index, result] of settled.entries()) {
      const toolUseId = String(toolUses[index].id);
      if ('skipped' in result) return false; // after a halt, which an earlier result already answered
      if (!result.ok) {
        const { error } = result;
        if (error instanceof AppError && error.code === 'RUN_NOT_ACTIVE') return false; // cancelled meanwhile
        if (error instanceof AppError && error.code === 'ORG_SUSPENDED') return this.deps.lifecycle.failSuspended(run).then(() => false);
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

  /**
   * Completes tool results that waited for approval (their calls as `read` with the message,
   * or read here): 'wait' while any still waits, 'reload'
   * when a concurrent step filled them first; else the content stored here and whether the
   * run was still running in that transaction. The approved calls before the first one still
   * waiting run concurrently, as runTools runs a turn's calls. A lone approved call stores the
   * results in the transaction that records its outcome.
   */
  async fillPending(run: AgentRun, message: RunMessage, read?: Map<string, ToolCall>): Promise<'wait' | 'reload' | FilledResults> {
    const em = this.deps.orm.em.fork();
    const content = [...(message.content as StoredBlock[])];
    const approved: { index: number; call: ToolCall }[] = [];
    let waits = false;
    for (const [index, block] of content.entries()) {
      if (!isPending(block)) continue;
      // Read with the message when the step loaded both (`read`); otherwise now.
      const call = read?.get(pendingCallId(block)) ?? (await em.findOneOrFail(ToolCall, { id: pendingCallId(block) }, { refresh: true }));
      if (call.status === 'waiting_approval' || call.status === 'running') {
        waits = true;
        break;
      }
      if (call.status === 'approved') approved.push({ index, call });
      else content[index] = resultBlock(String(block.tool_use_id), storedOutcome(call), call.toolName);
    }
    let storedWithOutcome: FilledResults | 'reload' | null = null;
    const lone = !waits && approved.length === 1;
    const settled = await this.deps.limits.all(
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
        if (result.error instanceof AppError && result.error.code === 'ORG_SUSPENDED') {
          return this.deps.lifecycle.failSuspended(run).then(() => 'wait' as const);
        }
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
}

/** A stored tool_use as the gateway's request: its id is the call's key, its refusal (if any) goes with it. */
function toolCallRequest(run: AgentRun, use: StoredBlock): ToolCallRequest {
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
