import type { EntityManager } from '@mikro-orm/postgresql';
import type { AgentRun } from './agent-run.entity';
import type { RunMessage } from './run-message.entity';
import type { StepClaims } from './run-jobs';

/** What the request that committed a step (and claimed it for this node) already holds about the run. */
export interface KnownRun {
  run: AgentRun;
  orgSuspended: boolean;
  /** The run's messages as committed. */
  messages: RunMessage[];
  /** Its specialist's system prompt (null: the default). */
  systemPrompt: string | null;
}

/**
 * The steps one committing transaction enqueued, as the requests that commit them see it:
 * each is claimed for this node where it can be (StepClaims); after the commit `start`
 * runs them here, and `abandon` frees the claims of a transaction that did not commit.
 * The step runner (src/runtime/local-steps.ts) implements it; the services that commit steps
 * (run lifecycle, approvals) know only this.
 */
export interface StepBatch extends StepClaims {
  /** What the committing request already holds about the run, handed to its step (only if claimed). */
  know(runId: string, known: KnownRun): void;
  start(): void;
  abandon(): void;
}

/** Where a batch comes from: the node's step runner. */
export interface LocalStepStarter {
  batch(): StepBatch;
}

/**
 * Runs `transaction` (one em.transactional, nothing after it) with a batch for the steps it
 * enqueues, and starts them here once it has committed. Inside an outer transaction there
 * is no commit to wait for: the steps are then left to the workers.
 */
export async function withLocalSteps<T>(
  em: EntityManager,
  steps: LocalStepStarter | null | undefined,
  transaction: (batch: StepBatch | null) => Promise<T>,
): Promise<T> {
  if (!steps || em.isInTransaction()) return transaction(null);
  const batch = steps.batch();
  let result: T;
  try {
    result = await transaction(batch);
  } catch (error) {
    batch.abandon();
    throw error;
  }
  batch.start();
  return result;
}
