import type { MikroORM } from '@mikro-orm/postgresql';
import type { ErrorCode } from '../errors/error-codes';
import { AgentRun } from '../runs/agent-run.entity';
import { RunMessage } from '../runs/run-message.entity';
import { ToolCall } from '../gateway/tool-call.entity';
import type { KnownRun } from '../runs/step-batches';
import type { RunEvents } from '../runs/run-events';
import type { StoredBlock } from '../runs/run-messages';
import { completeRun, failRun, isRunning, startRun } from '../runs/run-state';
import { roundLimitResult } from '../runs/tool-results';
import { appendToolResults } from './tool-round-results';

/** A run as a step loads it (KnownRun's fields, the prompt undefined when its specialist is gone). */
export interface LoadedRun extends Omit<KnownRun, 'systemPrompt'> {
  systemPrompt: string | null | undefined;
  /** The calls the last message's pending tool results wait for, by id, as read with it. */
  pendingCalls: Map<string, ToolCall>;
}

type LoadedRow = {
  org_suspended: boolean;
  specialist_found: boolean;
  specialist_prompt: string | null;
  run_messages: Record<string, unknown>[];
  pending_calls: Record<string, unknown>[];
} & Record<string, unknown>;

/**
 * The run-row side of a step: the run as it is loaded, and its status changes, each made
 * by run-state in a transaction of its own and announced to this node's subscribers once
 * committed. The loaded entity is never touched: only run-state writes a status.
 */
export class RunStepStatus {
  constructor(private readonly deps: { orm: MikroORM; events: RunEvents }) {}

  /**
   * The run, whether its org is suspended, its specialist's system prompt, its messages and
   * the calls its last message's pending tool results wait for, in one read (one snapshot).
   * `systemPrompt` is undefined when the specialist was not found (the model turn's own read
   * then fails as it always did).
   */
  async load(runId: string): Promise<LoadedRun | null> {
    const em = this.deps.orm.em.fork();
    const [row] = await em.execute<LoadedRow[]>(
      `select r.*, o.suspended_at is not null as org_suspended, s.id is not null as specialist_found, s.system_prompt as specialist_prompt,
              (select coalesce(json_agg(m order by m.position), '[]'::json) from run_messages m where m.run_id = r.id) as run_messages,
              (select coalesce(json_agg(c), '[]'::json) from tool_calls c
                where c.run_id = r.id and c.id::text in (
                  select b->'toolgate'->>'toolCallId' from run_messages l cross join jsonb_array_elements(l.content) b
                   where l.run_id = r.id and l.position = (select max(position) from run_messages where run_id = r.id)
                     and b->>'type' = 'tool_result' and b->'toolgate'->'pending' = 'true'::jsonb)) as pending_calls
         from agent_runs r join orgs o on o.id = r.org_id left join specialists s on s.id = r.specialist_id where r.id = ?`,
      [runId],
    );
    if (!row) return null;
    const {
      org_suspended: orgSuspended,
      specialist_found: found,
      specialist_prompt: prompt,
      run_messages: messages,
      pending_calls: calls,
      ...columns
    } = row;
    return {
      run: em.map(AgentRun, columns),
      orgSuspended,
      systemPrompt: found ? prompt : undefined,
      // As loadMessages reads them: json_agg writes timestamps as text, which the entity's type reads back.
      messages: messages.map((message) => em.map(RunMessage, message)),
      pendingCalls: new Map(calls.map((call) => [String(call.id), em.map(ToolCall, call)])),
    };
  }

  /** True when this step made the transition (false: the run was no longer in the expected status). */
  async transition(run: AgentRun, status: 'running' | 'completed'): Promise<boolean> {
    const changed = await this.deps.orm.em.fork().transactional((tx) => (status === 'running' ? startRun(tx, run) : completeRun(tx, run)));
    if (changed) this.deps.events.emit('status', { orgId: run.orgId, runId: run.id, status });
    return changed;
  }

  async fail(run: AgentRun, code: ErrorCode, message: string): Promise<void> {
    const changed = await this.deps.orm.em.fork().transactional((tx) => failRun(tx, run, code, message));
    this.failed(run, changed, code);
  }

  /** A suspended org's run calls neither the model nor a tool: it fails (postMessage continues it once resumed). */
  failSuspended(run: AgentRun): Promise<void> {
    return this.fail(run, 'ORG_SUSPENDED', 'The organization is suspended');
  }

  /**
   * Fails the run at a tool-round limit (round-limits.ts). The last turn's tool_uses, never
   * run, are answered in the same transaction (not run, is_error), so that the conversation
   * a posted message continues stays one the Messages API takes.
   */
  async failRounds(run: AgentRun, message: string, unanswered?: { toolUses: StoredBlock[]; position: number }): Promise<void> {
    const code = 'TOOL_ROUND_LIMIT';
    const changed = await this.deps.orm.em.fork().transactional(async (tx) => {
      if (!(await failRun(tx, run, code, message))) return false;
      if (unanswered) {
        const results = unanswered.toolUses.map((use) => roundLimitResult(String(use.id)));
        await appendToolResults(tx, run, unanswered.position, results);
      }
      return true;
    });
    this.failed(run, changed, code);
  }

  /** A failure committed elsewhere (the model turn's refusal) is announced the same way. */
  failed(run: AgentRun, changed: boolean, errorCode: ErrorCode): void {
    if (changed) this.deps.events.emit('status', { orgId: run.orgId, runId: run.id, status: 'failed', errorCode });
  }

  /** True once the run is no longer running (cancelled, failed, waiting): the step stops. */
  async stopped(runId: string): Promise<boolean> {
    return !(await isRunning(this.deps.orm.em.fork(), runId));
  }
}
