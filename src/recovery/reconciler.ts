import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../support/logger';
import type { MasterKeyring } from '../credentials/keyring';
import { openJson } from '../credentials/sealed-json';
import { sealedParamsAad } from '../approvals/approval-binding';
import { ERROR_CATALOG, type ErrorCode } from '../errors/error-codes';
import { redactOutput } from '../redaction/redact';
import type { LookupOutcome, ToolExecutor } from '../executor/executor.types';
import type { ToolCall } from '../gateway/tool-call.entity';
import { executionRequest, type RegisteredTool, type ToolRegistry } from '../gateway/tool-registry';
import { failureSettlement, settleCall, takeOverCall, type Settlement } from '../gateway/tool-call-state';
import { afterSettled } from '../gateway/tool-call-recorder';
import { enqueueRunStep } from '../runs/run-jobs';
import type { InFlightCalls } from './in-flight';
import { toolKey } from '../catalog/tool-key';
import type { ToolgateMetrics } from '../telemetry/metrics';

export interface ReconcilerDeps {
  orm: MikroORM;
  executor: ToolExecutor;
  keyring: MasterKeyring;
  tools: ToolRegistry;
  nodeId: string;
  inFlight: InFlightCalls;
  logger: Logger;
  metrics?: ToolgateMetrics;
}

/** How an interrupted call was settled (ledger metadata `reconciled`, docs/reliability.md). */
export type Reconciliation = 're_executed' | 'vendor_confirmed' | 'vendor_not_performed' | 'vendor_outcome_unknown' | 'input_lost';

/**
 * Settles a tool call that a dead node, an abandoned shutdown or a lost outcome write
 * left `running` — exactly once: this node takes the call over by a conditional update
 * (tool_call.interrupted), then
 * - an idempotent action runs again with the same idempotency key;
 * - a non-idempotent one is looked up at the vendor by that key: performed → succeeded
 *   with the vendor's result; not performed → failed VENDOR_NOT_PERFORMED (the run may ask
 *   again, as a new call); the vendor cannot tell → failed VENDOR_OUTCOME_UNKNOWN, marked
 *   for a person's review;
 * and the settlement (conditional on still owning the call) queues the run's next step.
 */
export class Reconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  /**
   * The reconciliation made, or null when the call was settled or taken by another node
   * first. With a `deadline` (a shutdown's last seconds) a vendor that has not answered by
   * then leaves an idempotent call failed VENDOR_TIMEOUT and a non-idempotent one unknown.
   * `inFlight`: the interrupted attempt may still reach the vendor (a shutdown settles its
   * own calls at once), so a lookup that finds nothing cannot say "not performed".
   */
  async reconcile(
    callId: string,
    fromNodeId: string | null,
    reason: string,
    options: { deadline?: number; inFlight?: boolean } = {},
  ): Promise<Reconciliation | null> {
    const { nodeId, inFlight } = this.deps;
    const call = await this.deps.orm.em.fork().transactional(async (tx) => {
      const taken = await takeOverCall(tx, callId, fromNodeId, nodeId, reason);
      if (taken) inFlight.add(taken.id); // before the commit: this node's orphan scan must skip it
      return taken;
    });
    if (!call) return null;
    const started = performance.now();
    try {
      const { settlement, how, vendor } = await this.settle(call, options.deadline ?? null, options.inFlight ?? false);
      settlement.durationMs = Math.round(performance.now() - started);
      const settled = await this.deps.orm.em.fork().transactional(async (tx) => {
        const [approval] = await tx.execute<{ id: string }[]>('select id from approval_requests where tool_call_id = ?', [call.id]);
        // The run's row is written before the ledger's lock is taken, as on every path.
        const events = await settleCall(tx, call, nodeId, settlement, () => afterSettled(tx, call, approval?.id ?? null));
        if (!events) return false;
        const [run] = await tx.execute<{ status: string; driver: string }[]>('select status, driver from agent_runs where id = ?', [call.runId]);
        // Toolgate's own runtime continues the run from this outcome, on whichever node.
        if (run?.driver === 'internal' && run.status === 'running') await enqueueRunStep(tx, call.runId);
        return true;
      });
      if (!settled) return null;
      this.deps.metrics?.reconciled(how);
      // Every reconciliation is an operator's event: the code and vendor status, never the vendor's text.
      this.deps.logger.warn(
        {
          code: settlement.errorCode,
          vendor,
          tool: toolKey(call.toolName, call.action),
          status: settlement.vendorStatusCode,
          reconciled: how,
          reason,
          toolCallId: call.id,
          runId: call.runId,
        },
        'interrupted tool call reconciled',
      );
      return how;
    } finally {
      inFlight.delete(call.id);
    }
  }

  private async settle(
    call: ToolCall,
    deadline: number | null,
    inFlight: boolean,
  ): Promise<{ settlement: Settlement; how: Reconciliation; vendor?: string }> {
    const tool = await this.deps.tools.find(this.deps.orm.em.fork(), call.orgId, call.toolName, call.action);
    const settled = await this.settleWith(call, tool, deadline, inFlight);
    return { ...settled, vendor: tool?.definition.vendor };
  }

  private async settleWith(
    call: ToolCall,
    tool: RegisteredTool | undefined,
    deadline: number | null,
    inFlight: boolean,
  ): Promise<{ settlement: Settlement; how: Reconciliation }> {
    const params = this.openInput(call);
    if (!tool || !params) {
      // Nothing to repeat or to ask with (a call from before inputs were sealed).
      return tool?.definition.idempotent
        ? { how: 'input_lost', settlement: failure('VENDOR_ERROR', 'interrupted_input_lost') }
        : { how: 'vendor_outcome_unknown', settlement: unknown('input_lost') };
    }
    // The same call id: the same idempotency key the interrupted attempt was sent with.
    const request = executionRequest(call, tool, params);
    if (tool.definition.idempotent) {
      const outcome = await beforeDeadline(this.deps.executor.execute(request), deadline, {
        ok: false,
        code: 'VENDOR_TIMEOUT',
        errorText: ERROR_CATALOG.VENDOR_TIMEOUT.modelMessage!,
        reason: 'shutdown_deadline',
        vendorStatusCode: null,
        retries: [],
      } as const);
      return {
        how: 're_executed',
        settlement: outcome.ok
          ? success(outcome.data, outcome.vendorStatusCode, outcome.retries.length, tool.definition.costCents, 're_executed')
          : {
              ...failure(outcome.code, outcome.reason, 're_executed'),
              vendorStatusCode: outcome.vendorStatusCode,
              retryCount: outcome.retries.length,
            },
      };
    }
    const lookup: LookupOutcome = this.deps.executor.lookup
      ? await beforeDeadline(
          this.deps.executor.lookup(request).catch((error: unknown) => {
            this.deps.logger.error({ err: error, toolCallId: call.id }, 'vendor lookup threw');
            return { kind: 'unknown', reason: 'lookup_error' } as const;
          }),
          deadline,
          { kind: 'unknown', reason: 'shutdown_deadline' } as const,
        )
      : { kind: 'unknown', reason: 'no_lookup' };
    switch (lookup.kind) {
      case 'performed': {
        const settlement = success(lookup.data, lookup.vendorStatusCode, 0, tool.definition.costCents, 'vendor_confirmed');
        // The effect exists, a later step of it could not be finished: what it is, for a person to finish.
        if (lookup.partial)
          return {
            how: 'vendor_confirmed',
            settlement: { ...settlement, reviewRequired: true, metadata: { ...settlement.metadata, partial: lookup.partial, resumed: false } },
          };
        return { how: 'vendor_confirmed', settlement };
      }
      case 'not_performed':
        if (inFlight) return { how: 'vendor_outcome_unknown', settlement: unknown('attempt_in_flight') };
        return { how: 'vendor_not_performed', settlement: failure('VENDOR_NOT_PERFORMED', 'not_performed', 'vendor_not_performed') };
      case 'unknown':
        return { how: 'vendor_outcome_unknown', settlement: unknown(lookup.reason) };
    }
  }

  private openInput(call: ToolCall): Record<string, unknown> | null {
    if (!call.sealedInput) return null;
    try {
      return openJson(this.deps.keyring.key(call.sealedInput.keyVersion), sealedParamsAad(call.orgId, call.id), call.sealedInput);
    } catch (error) {
      this.deps.logger.error({ err: error, toolCallId: call.id }, 'the sealed input of an interrupted call does not open');
      return null;
    }
  }
}

/** `work`'s answer, or `late` when the deadline passes first (the work is left to finish alone). */
async function beforeDeadline<T, L>(work: Promise<T>, deadline: number | null, late: L): Promise<T | L> {
  if (deadline === null) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function success(data: unknown, vendorStatusCode: number | null, retryCount: number, costCents: number, how: Reconciliation): Settlement {
  return {
    ok: true,
    outputRedacted: redactOutput(data),
    durationMs: null,
    retryCount,
    vendorStatusCode,
    costCents,
    errorCode: null,
    errorText: null,
    metadata: { reconciled: how, retryCount, costCents },
  };
}

function failure(code: ErrorCode, reason: string, how: Reconciliation = 'input_lost'): Settlement {
  return failureSettlement(code, { reconciled: how, reason });
}

/** The action may have happened: failed, and a person must look before anyone repeats it. */
function unknown(reason: string): Settlement {
  return { ...failure('VENDOR_OUTCOME_UNKNOWN', reason, 'vendor_outcome_unknown'), reviewRequired: true };
}
