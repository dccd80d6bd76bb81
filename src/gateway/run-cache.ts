import { LRUCache } from 'lru-cache';
import type { Caller } from '../auth/caller';
import type { JoinedWrite } from '../ledger/ledger.service';
import type { RunForCall } from './run-for-call';
import { assertDriver } from './call-outcome';

/**
 * The runs this node decided calls for, as it last read them, so that the next call of a
 * run is decided without reading it again: the decision's own statement checks instead
 * (`toolgate_call_run_check`, migration …_call_run_check) that the run is still active
 * with the same owner and its org unsuspended at the same configuration and policy
 * versions, and raises TGL03 otherwise; the gateway then forgets the run and decides on a
 * fresh read. One round trip fewer per call, so a call sends what the minimal floor sends.
 *
 * Only what the check covers, or what never changes after the run is created (its driver,
 * specialist and manifest), is taken from here; whether the call's `toolUseId` was used
 * before is the append's own check (TGL02), as for any racing request.
 */
export type CachedRun = Omit<RunForCall, 'toolUseCall'>;

/** SQLSTATE of a decision whose cached run or org changed since this node read them (the message is the run's id). */
const RUN_CHANGED = 'TGL03';

/** Runs kept per node: a few hundred bytes each; a run not used for a while is the first to go. */
const CAPACITY = 10_000;

export class RunCache {
  private readonly runs: LRUCache<string, CachedRun>;

  constructor(capacity = CAPACITY) {
    this.runs = new LRUCache({ max: capacity });
  }

  /** The run as last read, when `caller` may drive it as read then (anything else is decided on a fresh read). */
  get(runId: string, caller: Caller): CachedRun | undefined {
    const run = this.runs.get(runId);
    if (!run || run.orgId !== caller.orgId) return undefined;
    // A caller the cached run would refuse is refused (or not) on what the database says now.
    try {
      assertDriver(run, caller);
    } catch {
      return undefined;
    }
    return run;
  }

  /** A run read for a call that went on to be decided: active, its org not suspended. */
  remember(run: RunForCall): void {
    const { toolUseCall: _named, ...kept } = run;
    this.runs.set(run.id, kept);
  }

  forget(runId: string): void {
    this.runs.delete(runId);
  }
}

/** The check that travels with the decision's append in place of the run read (an expression answering the org's id). */
export function runCheck(run: CachedRun): JoinedWrite {
  return {
    sql: 'toolgate_call_run_check(?::uuid, ?::uuid, ?::uuid, ?::int, ?::int, ?::boolean)',
    params: [run.id, run.orgId, run.ownerKeyId, run.configVersion, run.policyVersion, run.shadowMode],
  };
}

/** The decision's check found the cached run or org changed: nothing was written. */
export function isRunChanged(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === RUN_CHANGED;
}
