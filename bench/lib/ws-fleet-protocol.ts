/**
 * Messages between the bench process and its websocket-client child (ws-fleet.ts ↔
 * ws-fleet-child.ts). Times are wall-clock milliseconds (`performance.timeOrigin +
 * performance.now()`) of the child's clock.
 */
import type { LatencyStats } from './timing';

export type FleetVariant = 'gql' | 'raw';

/**
 * One event of a run: when it was published (the commit's return for graphql-ws, the
 * broadcast's start for raw) and, in a steady load, when the load meant to publish it (its
 * schedule: start + n × period, the same for both variants; null in a burst).
 */
export interface Publication {
  id: number;
  publishedAt: number;
  scheduledAt: number | null;
}

export type FleetRequest =
  | { cmd: 'clock' }
  | { cmd: 'open-gql'; url: string; key: string; count: number }
  | {
      cmd: 'subscribe-gql';
      query: string;
      variables: Record<string, unknown>;
      /** The subscription field whose `sequence` identifies an event. */
      field: string;
    }
  | { cmd: 'open-raw'; url: string; count: number }
  | { cmd: 'record'; variant: FleetVariant }
  | {
      cmd: 'collect';
      variant: FleetVariant;
      /** Every event of the run, its times on the child's clock. */
      publishes: Publication[];
      timeoutMs: number;
    }
  | { cmd: 'close-raw' }
  | { cmd: 'close' };

export interface ClockReply {
  now: number;
}

export interface OpenReply {
  opened: number;
  ms: number;
  /** Bytes of one delivered frame (the replayed event for graphql-ws), as sent. */
  frameBytes: number;
}

export interface CollectReply {
  expected: number;
  received: number;
  /** Frames of events not published in this run (should be 0). */
  strays: number;
  /** Subscriptions or sockets that ended with an error (should be 0). */
  errors: number;
  firstError: string | null;
  /** Publication → each client's receipt, over every delivery. */
  fromPublish: LatencyStats;
  /** Schedule → each client's receipt (null when the events had no schedule: a burst). */
  fromSchedule: LatencyStats | null;
  firstPublish: number;
  lastReceipt: number;
  /** CPU (user + system) of the child during the run, ms. */
  cpuMs: number;
  /** Wall time of the run in the child, ms (from \`record\` to the end of \`collect\`). */
  wallMs: number;
  /** Bytes of the first frame received in the run. */
  frameBytes: number;
}

export type FleetMessage = { id: number; request: FleetRequest };
export type FleetResponse = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };
