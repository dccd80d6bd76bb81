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
}

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
