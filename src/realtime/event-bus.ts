/**
 * How nodes tell each other that something happened. Messages are small strings
 * (ids and offsets, never rows): PostgreSQL NOTIFY caps a payload below 8000 bytes.
 *
 * Channels:
 * - `ledger`: `<orgId>:<sequence>` — the org's audit ledger reached that sequence
 *   (published after the transaction that appended it committed).
 * - `tokens`: JSON `{ orgId, runId, offset, text }` — coalesced model text deltas.
 * - `access`: `key:<keyId>` or `org:<orgId>` — a key was revoked or an org suspended
 *   (published after the commit): nodes close the websockets of that key or org.
 * - `presence`: JSON — who has which approval open on which node: views opening and closing,
 *   heartbeats, sync requests (src/approvals/approval-presence-relay.ts). Names and roles,
 *   never a key's id or secret.
 */
export type BusChannel = 'ledger' | 'tokens' | 'access' | 'presence';

export interface EventBus {
  readonly kind: 'in-process' | 'postgres' | 'redis';
  publish(channel: BusChannel, message: string): Promise<void>;
  subscribe(channel: BusChannel, handler: (message: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** Whether the bus's store is reachable now (absent: always). /readyz reports a bus that is not. */
  connected?(): boolean;
  /**
   * Called each time the bus is back after losing its store: messages sent meanwhile were
   * lost, so a subscriber re-reads what it follows. Answers the unregistration.
   */
  onReconnect?(listener: () => void): () => void;
}

export const MAX_BUS_MESSAGE_BYTES = 7900;
