import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, notFound } from '../errors/app-error';
import { ERROR_CATALOG } from '../errors/error-codes';
import { isUuid } from '../db/ids';
import { TOOL_CALLING_FLAG } from '../orgs/feature-flag.entity';
import { ACTIVE_RUN_STATUSES, type RunStatus } from '../runs/agent-run.entity';
import { evaluatePolicy, type PolicyVerdict } from '../policy/policy-evaluator';
import { redactInput } from '../redaction/redact';
import { ApprovalRequest } from '../approvals/approval-request.entity';
import type { ExecutionOutcome, ToolExecutor } from '../executor/executor.types';
import type { Caller } from '../auth/caller';
import type { MasterKeyring } from '../credentials/keyring';
import type { Logger } from '../logger';
import { ToolCall } from './tool-call.entity';
import { ToolUseRecorded } from '../ledger/ledger.service';
import type { OrgConfigCache } from './org-config-cache';
import { describeInputErrors, executionRequest, type RegisteredTool, type ToolRegistry } from './tool-registry';
import { BLOCK_REASONS, type ToolCallOutcome, type ToolCallRequest } from './gateway.types';
import { recordBlockedCall, recordDecidedCall, recordOutcome, recordRefusedApproval, type DecidedCall } from './tool-call-recorder';
import { startApprovedCall } from './tool-call-state';
import { openApprovedParams } from './approved-params';
import { loadRunForCall } from './run-for-call';
import { assertDriver, blocked, isStorable, outcomeOf, replay, storable } from './call-outcome';
import type { InFlightCalls } from '../recovery/in-flight';
import type { Failpoints } from '../recovery/failpoints';
import { toolKey } from '../catalog/tool-key';
import { rawTransaction, type SqlTransaction } from '../db/raw-transaction';
import type { Clock } from '../clock';
import { UNKNOWN_TOOL, type ToolgateMetrics } from '../telemetry/metrics';
import { describeDecided, describeExecution, describeRecorded, traceDecision, traceStage } from '../telemetry/trace-gateway';

export interface GatewayDeps {
  orm: MikroORM;
  executor: ToolExecutor;
  keyring: MasterKeyring;
  settings: { toolCallingKillSwitch: boolean; approvalTtlMs: number };
  orgConfig: OrgConfigCache;
  tools: ToolRegistry;
  logger: Logger;
  /** This node (src/recovery): it owns the calls it runs until they settle. */
  nodeId: string;
  inFlight: InFlightCalls;
  failpoints: Failpoints;
  /** What a call's recorded duration is measured on (a test's manual clock: its simulated waits). */
  clock: Clock;
  /** Counts each answer (src/telemetry/metrics.ts). */
  metrics?: ToolgateMetrics;
}

const orgSuspended = () => new AppError('ORG_SUSPENDED', 'The organization is suspended; no tool call runs');

/** Writes in the transaction that records a call's outcome, from that outcome. */
export type OutcomeWriter = (tx: SqlTransaction, outcome: ToolCallOutcome) => Promise<void>;

/**
 * Layer 3. Every tool call passes here in one order: feature flag → manifest → input
 * schema → policy → recorded (transaction 1) → approval, or executor → outcome recorded
 * (transaction 2). Flags, rules and the catalog come from memory.
 */
export class ToolGateway {
  private draining = false;

  constructor(private readonly deps: GatewayDeps) {}

  /** Shutdown: new calls are refused (retryable); calls in flight finish. */
  drain(): void {
    this.draining = true;
  }

  private assertAccepting(): void {
    if (this.draining) throw new AppError('SERVICE_UNAVAILABLE', 'This node is shutting down; retry the call');
  }

  /** The feature-flag step alone, from the calls' cache: MCP lists no tools of a disabled org. */
  async toolCallingEnabled(orgId: string): Promise<boolean> {
    if (this.deps.settings.toolCallingKillSwitch) return false;
    const em = this.deps.orm.em.fork();
    const [org] = await em.execute<{ config_version: number }[]>('select config_version from orgs where id = ?', [orgId]);
    if (!org) return false;
    return (await this.deps.orgConfig.get(em, orgId, org.config_version)).flags.get(TOOL_CALLING_FLAG) === true;
  }

  async execute(request: ToolCallRequest): Promise<ToolCallOutcome> {
    this.assertAccepting();
    const started = this.deps.clock.now();
    // Reads outside the call's transaction (the catalog's one load per process, replays): the
    // transaction holds one pooled connection and never waits for a second. Their fork is
    // made only when one of them happens.
    let forked: EntityManager | undefined;
    const reads = () => (forked ??= this.deps.orm.em.fork());
    const registered = await this.deps.tools.find(reads, request.caller.orgId, request.toolName, request.action);
    let decided: DecidedCall | ToolCallOutcome | { replayOf: string };
    try {
      decided = await traceStage(
        'decide',
        request,
        () => this.claiming((claim) => rawTransaction(this.deps.orm, (tx) => this.decide(tx, request, registered, claim))),
        describeDecided,
      );
    } catch (error) {
      // Two requests with one toolUseId raced; the loser answers with the winner's call. The
      // append point usually tells (ToolUseRecorded); the unique constraint is the backstop.
      if (error instanceof ToolUseRecorded) return replay(reads(), await reads().findOneOrFail(ToolCall, { id: error.toolCallId }));
      if (error instanceof UniqueConstraintViolationException && request.toolUseId) {
        const existing = await this.findByToolUse(reads(), request);
        if (existing) return replay(reads(), existing);
      }
      throw error;
    }
    if ('replayOf' in decided) return replay(reads(), await reads().findOneOrFail(ToolCall, { id: decided.replayOf }));
    const tool = registered ? toolKey(registered.definition.toolName, registered.definition.action) : UNKNOWN_TOOL;
    if (!('call' in decided)) return this.counted(tool, 'none', decided);
    if (decided.call.status !== 'running') return this.counted(tool, decided.decision, outcomeOf(decided.call, null, decided.approvalRequestId));
    return this.counted(tool, decided.decision, await this.run(decided, request.params as Record<string, unknown>, started));
  }

  /** The answer, counted by tool, policy decision, status and code (replays are not counted again). */
  private counted(tool: string, decision: string, outcome: ToolCallOutcome): ToolCallOutcome {
    this.deps.metrics?.toolCall(tool, decision, outcome.status, outcome.error?.code ?? null);
    return outcome;
  }

  /**
   * Runs a call whose approval was granted: once, whoever asks how often, and only while
   * its run is active. The params are opened and checked against the approved binding in
   * the same transaction that claims the call, so a refused call ends `failed` with its
   * code instead of staying claimed. `withOutcome` writes what follows from the outcome (the
   * runtime's tool result) in the outcome's own transaction; it is not called for a replay.
   */
  async executeApproved(toolCallId: string, caller: Caller, withOutcome?: OutcomeWriter): Promise<ToolCallOutcome> {
    this.assertAccepting();
    const em = this.deps.orm.em.fork();
    const started = this.deps.clock.now();
    if (!isUuid(toolCallId)) throw notFound('Tool call');
    const claimed = await this.claiming((claim) =>
      em.transactional(async (tx) => {
        const call = await tx.findOne(ToolCall, { id: toolCallId, orgId: caller.orgId }, { refresh: true });
        if (!call) throw notFound('Tool call');
        if (call.status !== 'approved') return { kind: 'replay', call } as const;
        const [run] = await tx.execute<{ status: RunStatus; driver: string; org_suspended: boolean }[]>(
          `select r.status, r.driver, o.suspended_at is not null as org_suspended
             from agent_runs r join orgs o on o.id = r.org_id where r.id = ? for update of r`,
          [call.runId],
        );
        // Still approved, not claimed: it can run once the org is resumed.
        if (run.org_suspended) throw orgSuspended();
        assertDriver(run.driver, caller);
        if (!ACTIVE_RUN_STATUSES.includes(run.status)) {
          throw new AppError('RUN_NOT_ACTIVE', `Run is ${run.status}; its approved call can no longer run`, { runStatus: run.status });
        }
        const approval = await tx.findOneOrFail(ApprovalRequest, { toolCallId, orgId: caller.orgId });
        // Same AAD as the approval's (org, call): its sealed params become the running call's input.
        if (!(await startApprovedCall(tx, call.id, this.deps.nodeId, approval.sealedParams))) {
          return { kind: 'replay', call: await tx.findOneOrFail(ToolCall, { id: call.id }, { refresh: true }) } as const;
        }
        // The managed entity is left as loaded (the commit's flush must not write it again).
        claim(call.id);
        const tool = await this.deps.tools.find(tx, call.orgId, call.toolName, call.action);
        try {
          if (!tool) throw new AppError('CONFLICT', 'The approved call can no longer be resumed');
          const params = await openApprovedParams(tx, this.deps.keyring, call, approval);
          return { kind: 'run', call, tool, approval, params } as const;
        } catch (error) {
          const code = error instanceof AppError ? error.code : 'CONFLICT';
          await recordRefusedApproval(tx, call, approval, code, this.deps.nodeId);
          this.deps.inFlight.delete(call.id);
          tx.clear(); // the settlement mutated the managed call: nothing more to flush
          return {
            kind: 'refused',
            error: new AppError(code, error instanceof AppError ? error.message : 'The approved call cannot be resumed'),
          } as const;
        }
      }),
    );
    if (claimed.kind === 'replay') return replay(em, claimed.call);
    if (claimed.kind === 'refused') throw claimed.error;
    const outcome = await this.run(
      { call: claimed.call, tool: claimed.tool, approvalRequestId: claimed.approval.id },
      claimed.params,
      started,
      withOutcome,
    );
    return this.counted(toolKey(claimed.call.toolName, claimed.call.action), `require_${claimed.approval.kind}_approval`, outcome);
  }

  /**
   * A transaction that may make calls `running` on this node: each joins the in-flight set
   * before the commit (this node's orphan scan must never see it as abandoned), and leaves it
   * again if the transaction fails.
   */
  private async claiming<T>(transaction: (claim: (callId: string) => void) => Promise<T>): Promise<T> {
    const claimed: string[] = [];
    try {
      return await transaction((callId) => {
        claimed.push(callId);
        this.deps.inFlight.add(callId);
      });
    } catch (error) {
      for (const callId of claimed) this.deps.inFlight.delete(callId);
      throw error;
    }
  }

  /** Transaction 1, on one connection: run, flags and rules, policy, the call recorded. */
  private async decide(
    tx: SqlTransaction,
    request: ToolCallRequest,
    registered: RegisteredTool | undefined,
    claim: (callId: string) => void,
  ): Promise<DecidedCall | ToolCallOutcome | { replayOf: string }> {
    const run = await loadRunForCall(tx, request.caller.orgId, request.runId, request.toolUseId ?? null);
    // Read with the run, so a suspension holds on every node from its commit on; nothing is recorded.
    if (run.orgSuspended) throw orgSuspended();
    assertDriver(run.driver, request.caller);
    if (run.toolUseCallId) return { replayOf: run.toolUseCallId };
    const config = await this.deps.orgConfig.get(tx, run.orgId, run.configVersion);
    const key = toolKey(request.toolName, request.action);
    // What is stored must be storable: NUL (which PostgreSQL refuses) becomes U+FFFD.
    const stored = { ...request, toolName: storable(request.toolName).slice(0, 200), action: storable(request.action).slice(0, 200) };
    const base = { run, request: stored, inputRedacted: storable(redactInput(request.params)), metadata: this.deps.orm.getMetadata() };

    if (this.deps.settings.toolCallingKillSwitch || !config.flags.get(TOOL_CALLING_FLAG)) {
      return blocked(
        await recordBlockedCall(tx, base, 'FEATURE_DISABLED', BLOCK_REASONS.FEATURE_DISABLED, {
          killSwitch: this.deps.settings.toolCallingKillSwitch,
        }),
        'FEATURE_DISABLED',
      );
    }
    const tool = run.allowedTools.includes(key) && stored.toolName === request.toolName && stored.action === request.action ? registered : undefined;
    if (!tool) {
      return blocked(await recordBlockedCall(tx, base, 'NOT_IN_MANIFEST', BLOCK_REASONS.NOT_IN_MANIFEST, {}), 'NOT_IN_MANIFEST');
    }
    if (!tool.validate(request.params) || !isStorable(request.params)) {
      const problems = tool.validate.errors ? describeInputErrors(tool.validate) : [{ path: '/', problem: 'contains a NUL character' }];
      return blocked(
        await recordBlockedCall(tx, base, 'INVALID_TOOL_INPUT', BLOCK_REASONS.INVALID_TOOL_INPUT, { problems: storable(problems) }),
        'INVALID_TOOL_INPUT',
      );
    }

    const params = request.params as Record<string, unknown>;
    const verdict: PolicyVerdict = evaluatePolicy(
      config.rules,
      {
        toolName: request.toolName,
        action: request.action,
        params,
        callerRole: request.caller.role,
        specialistId: run.specialistId,
        defaultRisk: tool.definition.defaultRisk,
      },
      run.shadowMode,
    );
    traceDecision(verdict);
    const call = await recordDecidedCall(tx, {
      ...base,
      tool,
      verdict,
      policyVersion: run.policyVersion,
      keyring: this.deps.keyring,
      approvalTtlMs: this.deps.settings.approvalTtlMs,
      params,
      nodeId: this.deps.nodeId,
    });
    // Its outcome comes from the executor (execute): the call joins this node's in-flight set first.
    if (call.call.status === 'running') claim(call.call.id);
    return call;
  }

  /** Executor, then transaction 2. A vendor failure is an outcome, never an exception. */
  private async run(
    decided: { call: ToolCall; tool: RegisteredTool; approvalRequestId?: string | null },
    params: Record<string, unknown>,
    started: number,
    withOutcome?: OutcomeWriter,
  ): Promise<ToolCallOutcome> {
    const { call, tool } = decided;
    const approvalRequestId = decided.approvalRequestId ?? null;
    const data = (outcome: ExecutionOutcome) => (outcome.ok ? outcome.data : null);
    try {
      let outcome: ExecutionOutcome;
      try {
        outcome = await traceStage('execute', call, () => this.deps.executor.execute(executionRequest(call, tool, params)), describeExecution);
      } catch (error) {
        this.deps.logger.error({ err: error, toolCallId: call.id }, 'executor threw; recording the call as failed');
        outcome = {
          ok: false,
          code: 'VENDOR_ERROR',
          errorText: ERROR_CATALOG.VENDOR_ERROR.modelMessage!,
          reason: 'executor_error',
          vendorStatusCode: null,
          retries: [],
        };
      }
      this.deps.failpoints.hit('after_vendor_response');
      const durationMs = Math.round(this.deps.clock.now() - started);
      // Transaction 2 (raw, like the first): the recorder's UPDATE and the ledger append.
      const finished = await traceStage(
        'record',
        call,
        () =>
          rawTransaction(this.deps.orm, async (tx) => {
            const recorded = await recordOutcome(tx, call, outcome, {
              durationMs,
              costCents: tool.definition.costCents,
              approvalRequestId,
              nodeId: this.deps.nodeId,
            });
            if (recorded && withOutcome) await withOutcome(tx, outcomeOf(recorded, data(outcome), approvalRequestId));
            return recorded;
          }),
        describeRecorded,
      );
      if (!finished) {
        // Reconciliation took the call over meanwhile (this node was presumed dead): its outcome stands.
        const em = this.deps.orm.em.fork();
        return replay(em, await em.findOneOrFail(ToolCall, { id: call.id }));
      }
      return outcomeOf(finished, data(outcome), approvalRequestId);
    } finally {
      // Still `running` after this (the outcome could not be written) means abandoned: reconciled.
      this.deps.inFlight.delete(call.id);
    }
  }

  /** A plain existence check first: on the hot path the answer is almost always "none". */
  private async findByToolUse(em: EntityManager, request: ToolCallRequest): Promise<ToolCall | null> {
    const [row] = await em.execute<{ id: string }[]>('select id from tool_calls where run_id = ? and org_id = ? and tool_use_id = ?', [
      request.runId,
      request.caller.orgId,
      request.toolUseId,
    ]);
    return row ? em.findOne(ToolCall, { id: row.id }) : null;
  }
}
