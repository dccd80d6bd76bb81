import { EventEmitter } from 'node:events';
import type { RunStatus } from './agent-run.entity';

/**
 * Live signals of runs, published as they happen and never written per token: text
 * deltas carry `offset`, the position of their first character in the run's whole
 * assistant text, so a late subscriber can take the persisted text and continue from
 * there without gaps or repeats.
 */
export interface TokenEvent {
  orgId: string;
  runId: string;
  offset: number;
  text: string;
  /**
   * Everything from `offset` on is discarded before `text` (possibly empty) is placed there:
   * a turn whose stream failed and is asked again, or a refused turn. The first delta of every
   * model attempt carries it too, so an attempt that replaces one lost with its node (a step
   * run again elsewhere) replaces its text instead of being spliced behind it.
   */
  retract?: boolean;
}

/** The run's text from `offset` on is discarded (runTokens subscribers are told to cut there). */
export const retraction = (run: { orgId: string; id: string }, offset: number): TokenEvent => ({
  orgId: run.orgId,
  runId: run.id,
  offset,
  text: '',
  retract: true,
});

export interface RunStatusEvent {
  orgId: string;
  runId: string;
  status: RunStatus;
  errorCode?: string | null;
}

export interface RunEventMap {
  token: [TokenEvent];
  status: [RunStatusEvent];
}

export class RunEvents extends EventEmitter<RunEventMap> {}
