import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, notFound } from '../errors/app-error';
import { ERROR_CATALOG } from '../errors/error-codes';
import { isUuid } from '../db/ids';
import { TOOL_CALLING_FLAG } from '../orgs/feature-flag.entity';
import { ACTIVE_RUN_STATUSES, type RunStatus } from '../runs/agent-run.entity';
import { evaluatePolicy, historyCandidates, type PolicyInput, type PolicyVerdict } from '../policy/policy-evaluator';
import { evaluateCedar } from '../policy/cedar-engine';
import { readHistory } from '../policy/policy-history';
import { outcomeRequiring } from '../policy/policy-outcomes';
import { redactInput } from '../redaction/redact';
import { ApprovalRequest } from '../approvals/approval-request.entity';
import type { ExecutionOutcome, ToolExecutor } from '../executor/executor.types';
import type { Caller } from '../auth/caller';
import type { MasterKeyring } from '../credentials/keyring';
import type { Logger } from '../support/logger';
import { ToolCall } from './tool-call.entity';
import { ToolUseRecorded } from '../ledger/ledger.service';
import { callFingerprint } from './call-fingerprint';
import { joinRepeatedCall } from './call-repeats';
import type { OrgConfigCache } from './org-config-cache';
import { describeInputErrors, executionRequest, type RegisteredTool, type ToolRegistry } from './tool-registry';
import { BLOCK_REASONS, type ToolCallOutcome, type ToolCallRequest } from './gateway.types';
import {
  recordBlockedCall,
  recordDecidedCall,
  recordOutcome,
  recordRefusedApproval,
  settlesInOneStatement,
  type DecidedCall,
} from './tool-call-recorder';
import { startApprovedCall } from './tool-call-state';
import { blockIfPolicyBlocks } from './approval-policy-change';
import { openApprovedParams } from './approved-params';
import { loadRunForCall, type RunForCall } from './run-for-call';
import { RunCache, isRunChanged, runCheck } from './run-cache';
import { assertDriver, blocked, invalidInput, isStorable, outcomeOf, replay, storable } from './call-outcome';
import type { InFlightCalls } from '../recovery/in-flight';
import type { Failpoints } from '../recovery/failpoints';
import { toolKey } from '../catalog/tool-key';
import { rawStatement, rawTransaction, readOutside, type SqlTransaction } from '../db/raw-transaction';
import type { Clock } from '../support/clock';
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

/** The run, its org and the call's decision, as an approved call is claimed. */
interface ApprovedRunRow {
  status: RunStatus;
  driver: string;
  owner_key_id: string | null;
  specialist_id: string;
  org_suspended: boolean;
  config_version: number;
  policy_version: number;
  policy_shadow_mode: boolean;
  decided_policy_version: number | null;
  caller_role: string | null;
}

/** What transaction 1 decided: a call recorded, an answer, a replay, or a reused key refused. */
type Decided = DecidedCall | ToolCallOutcome | { replayOf: string } | { keyReused: ToolCall };

/** Writes in the transaction that records a call's outcome, from that outcome. */
export type OutcomeWriter = (tx: SqlTransaction, outcome: ToolCallOutcome) => Promise<void>;

/**
 * Layer 3. Every tool call passes here in one order: feature flag → manifest → input
 * schema → policy → recorded (transaction 1) → approval, or executor → outcome recorded
 * (transaction 2). Flags, rules and the catalog come from memory.
 */
export class ToolGateway {
  private draining = false;
  /** The last time a call was stamped with: this node's calls are stamped in the order they are decided. */
  private lastStamp = 0;
  /** The runs this node decided calls for, as last read: the next call checks instead of reading (run-cache.ts). */
  private readonly runs = new RunCache();

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
    return this.flagOn(orgId, TOOL_CALLING_FLAG);
  }

  /** One of the org's feature flags, from the calls' cache (a flag with no row is off). */
  async flagOn(orgId: string, key: string): Promise<boolean> {
    const em = this.deps.orm.em.fork();
    const [org] = await em.execute<{ config_version: number }[]>('select config_version from orgs where id = ?', [orgId]);
    if (!org) return false;
    return (await this.deps.orgConfig.get(em, orgId, org.config_version)).flags.get(key) === true;
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
    const decided = await this.decideOnce(request, registered, true);
    if ('replayOf' in decided) return replay(reads(), await reads().findOneOrFail(ToolCall, { id: decided.replayOf }));
    const tool = registered ? toolKey(registered.definition.toolName, registered.definition.action) : UNKNOWN_TOOL;
    if ('keyReused' in decided) {
      this.counted(tool, 'none', blocked(decided.keyReused, 'IDEMPOTENCY_KEY_REUSED'));
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotency key already names another call (another tool, action or params); nothing ran', {
        toolCallId: decided.keyReused.id,
      });
    }
    if (!('call' in decided)) return this.counted(tool, 'none', decided);
    if (decided.call.status !== 'running') return this.counted(tool, decided.decision, outcomeOf(decided.call, null, decided.approvalRequestId));
    return this.counted(tool, decided.decision, await this.run(decided, request.params as Record<string, unknown>, started));
  }

  /**
   * Transaction 1. Two requests with one key raced and this one lost: the winner's call is
   * committed when the loser learns of it (the append point, or the unique constraint as the
   * backstop), so deciding again answers by the key's rule — a replay, or a refusal when the
   * winner's content differs.
   */
  private async decideOnce(request: ToolCallRequest, registered: RegisteredTool | undefined, retry: boolean, cached = true): Promise<Decided> {
    try {
      return await traceStage(
        'decide',
        request,
        () => this.claiming((claim) => rawTransaction(this.deps.orm, (tx) => this.decide(tx, request, registered, claim, cached))),
        describeDecided,
      );
    } catch (error) {
      // Decided on the run as this node last read it, which has changed since: nothing was written; again on a fresh read.
      if (isRunChanged(error)) {
        this.runs.forget(request.runId);
        return this.decideOnce(request, registered, retry, false);
      }
      const raced = error instanceof ToolUseRecorded || (error instanceof UniqueConstraintViolationException && request.toolUseId);
      if (raced && retry) return this.decideOnce(request, registered, false, false);
      throw error;
    }
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
        const found = await tx.findOne(ToolCall, { id: toolCallId, orgId: caller.orgId }, { refresh: true });
        if (!found) throw notFound('Tool call');
        if (found.status !== 'approved') {
          // A replay answers the call's result: only to its run's driver.
          const [owner] = await tx.execute<{ driver: string; owner_key_id: string | null }[]>(
            'select driver, owner_key_id from agent_runs where id = ?',
            [found.runId],
          );
          assertDriver({ driver: owner.driver, ownerKeyId: owner.owner_key_id }, caller);
          return { kind: 'replay', call: found } as const;
        }
        const [run] = await tx.execute<ApprovedRunRow[]>(
          `select r.status, r.driver, r.owner_key_id, r.specialist_id, o.suspended_at is not null as org_suspended, o.config_version,
                  o.policy_version, o.policy_shadow_mode, d.policy_version as decided_policy_version, d.caller_role
             from agent_runs r join orgs o on o.id = r.org_id left join policy_decisions d on d.id = ?
            where r.id = ? for no key update of r`,
          [found.policyDecisionId, found.runId],
        );
        // Read again once the run's row is held: another request may have claimed and run it
        // meanwhile. Its outcome transaction holds the call's row and then wants the run's, so
        // this one must not wait on the call's row while holding the run's.
        const call = await tx.findOneOrFail(ToolCall, { id: toolCallId }, { refresh: true });
        assertDriver({ driver: run.driver, ownerKeyId: run.owner_key_id }, caller);
        if (call.status !== 'approved') return { kind: 'replay', call } as const;
        // Still approved, not claimed: it can run once the org is resumed.
        if (run.org_suspended) throw orgSuspended();
        if (!ACTIVE_RUN_STATUSES.includes(run.status)) {
          throw new AppError('RUN_NOT_ACTIVE', `Run is ${run.status}; its approved call can no longer run`, { runStatus: run.status });
        }
        const approval = await tx.findOneOrFail(ApprovalRequest, { toolCallId, orgId: caller.orgId });
        // The run's row is locked: whoever else executes this call waits here, then finds it claimed.
        const start = async () => {
          // Same AAD as the approval's (org, call): its sealed params become the running call's input.
          if (!(await startApprovedCall(tx, call.id, this.deps.nodeId, approval.sealedParams))) return false;
          claim(call.id); // the managed entity is left as loaded (the commit's flush must not write it again)
          return true;
        };
        const current = async () => ({ kind: 'replay', call: await tx.findOneOrFail(ToolCall, { id: call.id }, { refresh: true }) }) as const;
        const tool = await this.deps.tools.find(tx, call.orgId, call.toolName, call.action);
        let params: Record<string, unknown>;
        try {
          if (!tool) throw new AppError('CONFLICT', 'The approved call can no longer be resumed');
          // The decision's policy version came with the run's row (one statement fewer while it is held).
          params = await openApprovedParams(tx, this.deps.keyring, call, approval, run.decided_policy_version ?? undefined);
        } catch (error) {
          if (!(await start())) return current();
          const code = error instanceof AppError ? error.code : 'CONFLICT';
          await recordRefusedApproval(tx, call, approval, code, this.deps.nodeId);
          this.deps.inFlight.delete(call.id);
          tx.clear(); // the settlement mutated the managed call: nothing more to flush
          return {
            kind: 'refused',
            error: new AppError(code, error instanceof AppError ? error.message : 'The approved call cannot be resumed'),
          } as const;
        }
        // Policy changed since the call was decided: approving runs it unless the policy now blocks it.
        if (run.decided_policy_version !== null && run.policy_version !== run.decided_policy_version) {
          const config = await this.deps.orgConfig.get(tx, call.orgId, run.config_version);
          // Cedar as it is now, the principal the decision's role (the person who called is not kept).
          const cedar = config.cedar
            ? evaluateCedar(config.cedar, {
                orgId: call.orgId,
                toolName: call.toolName,
                action: call.action,
                params,
                inputSchema: tool.definition.inputSchema,
                callerRole: run.caller_role ?? 'agent',
                personId: null,
                runId: call.runId,
                specialistId: run.specialist_id,
                defaultRisk: tool.definition.defaultRisk,
              })
            : null;
          const blockedNow = await blockIfPolicyBlocks(
            tx,
            config.rules,
            {
              call,
              approvalRequestId: approval.id,
              params,
              callerRole: run.caller_role ?? 'agent',
              specialistId: run.specialist_id,
              defaultRisk: tool.definition.defaultRisk,
              policyVersion: run.policy_version,
              shadowMode: run.policy_shadow_mode,
              now: new Date(this.deps.clock.now()),
            },
            cedar,
          );
          if (blockedNow) return current();
        }
        if (!(await start())) return current();
        return { kind: 'run', call, tool, approval, params } as const;
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
    return this.counted(toolKey(claimed.call.toolName, claimed.call.action), outcomeRequiring(claimed.approval.kind), outcome);
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
    cached: boolean,
  ): Promise<Decided> {
    // The run as this node last read it, checked by the decision's own statement (run-cache.ts);
    // not for a keyless repeat, whose answer (a replay) writes nothing that would check it.
    const copy = cached && !request.joinRepeats ? this.runs.get(request.runId, request.caller) : undefined;
    // This node already saw a newer config of the org than the copy's: the check would refuse it.
    const known = copy && !this.deps.orgConfig.hasNewer(copy.orgId, copy.configVersion) ? copy : undefined;
    const run: RunForCall = known
      ? { ...known, toolUseCall: null }
      : // A read that locks nothing: alone, before any BEGIN (the decision's write may then go alone too).
        await loadRunForCall(readOutside(tx), request.caller.orgId, request.runId, request.toolUseId ?? null);
    // Read with the run, so a suspension holds on every node from its commit on; nothing is recorded.
    if (run.orgSuspended) throw orgSuspended();
    assertDriver(run, request.caller);
    if (!known) this.runs.remember(run);
    const fingerprint = callFingerprint({ runId: run.id, toolName: request.toolName, action: request.action, params: request.params });
    // What is stored must be storable: NUL (which PostgreSQL refuses) becomes U+FFFD.
    const stored = { ...request, toolName: storable(request.toolName).slice(0, 200), action: storable(request.action).slice(0, 200) };
    const base = {
      run,
      request: stored,
      inputRedacted: storable(redactInput(request.params)),
      fingerprint,
      metadata: this.deps.orm.getMetadata(),
      ...(known ? { runCheck: runCheck(known) } : {}),
    };
    if (run.toolUseCall) {
      // A key names exactly one call: its own content replays (calls older than fingerprints too).
      const named = run.toolUseCall;
      if (named.fingerprint === null || named.fingerprint === fingerprint) return { replayOf: named.id };
      // Recorded without the key (it stays the other call's), and never run.
      const refused = { ...base, request: { ...stored, toolUseId: null } };
      const details = { toolUseId: request.toolUseId, existingToolCallId: named.id };
      return { keyReused: await recordBlockedCall(tx, refused, 'IDEMPOTENCY_KEY_REUSED', BLOCK_REASONS.IDEMPOTENCY_KEY_REUSED, details) };
    }
    if (request.joinRepeats) {
      const joined = await joinRepeatedCall(tx, run.id, fingerprint);
      if (joined) return { replayOf: joined };
    }
    if (request.refusal) {
      const { code, details = {} } = request.refusal;
      const outcome = blocked(await recordBlockedCall(tx, base, code, BLOCK_REASONS[code], storable(details)), code);
      return Array.isArray(details.problems) ? invalidInput(outcome, details.problems as { path: string; problem: string }[]) : outcome;
    }
    const config = await this.deps.orgConfig.get(tx, run.orgId, run.configVersion);
    const key = toolKey(request.toolName, request.action);

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
      return invalidInput(
        blocked(
          await recordBlockedCall(tx, base, 'INVALID_TOOL_INPUT', BLOCK_REASONS.INVALID_TOOL_INPUT, { problems: storable(problems) }),
          'INVALID_TOOL_INPUT',
        ),
        problems,
      );
    }

    const params = request.params as Record<string, unknown>;
    const input: PolicyInput = {
      toolName: request.toolName,
      action: request.action,
      params,
      callerRole: request.caller.role,
      specialistId: run.specialistId,
      defaultRisk: tool.definition.defaultRisk,
    };
    // Rules over history: one statement for all the candidate rules' history conditions (none
    // when there is none), under the locks of their limits. The call is stamped with the same
    // time its windows end at.
    const now = this.stamp();
    // Cedar policies, if the org has some: a forbid decides before the rules (and their history).
    const cedar = config.cedar
      ? evaluateCedar(config.cedar, {
          ...input,
          orgId: run.orgId,
          inputSchema: tool.definition.inputSchema,
          personId: request.caller.person?.id ?? null,
          runId: run.id,
        })
      : null;
    const wanted = config.hasHistory && !cedar?.forbid ? historyCandidates(config.rules, input) : [];
    const history =
      wanted.length > 0
        ? await readHistory(tx, wanted, {
            orgId: run.orgId,
            runId: run.id,
            toolName: request.toolName,
            action: request.action,
            params,
            storedParams: base.inputRedacted,
            now,
          })
        : undefined;
    const verdict: PolicyVerdict = evaluatePolicy(config.rules, input, run.shadowMode, history, cedar);
    traceDecision(verdict);
    const call = await recordDecidedCall(tx, {
      ...base,
      createdAt: now,
      tool,
      verdict,
      policyVersion: run.policyVersion,
      keyring: this.deps.keyring,
      approvalTtlMs: this.deps.settings.approvalTtlMs,
      params,
      nodeId: this.deps.nodeId,
      // Its outcome comes from the executor (execute): the call joins this node's in-flight set first.
      claim,
    });
    return call;
  }

  /**
   * When a call is decided: the clock's time (history windows end there), at least a
   * millisecond after this node's previous call, so that a clock that stands still (a test's)
   * or a burst within one millisecond still orders the calls as they were decided.
   */
  private stamp(): Date {
    this.lastStamp = Math.max(this.deps.clock.now(), this.lastStamp + 1);
    return new Date(this.lastStamp);
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
      // Transaction 2 (raw, like the first): the recorder's UPDATE and the ledger append — one
      // statement, without BEGIN and COMMIT, when nothing else is written with them.
      const extra = { costCents: tool.definition.costCents, approvalRequestId };
      const transaction = !withOutcome && settlesInOneStatement(outcome, extra) ? rawStatement : rawTransaction;
      const finished = await traceStage(
        'record',
        call,
        () =>
          transaction(this.deps.orm, async (tx) => {
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
}
