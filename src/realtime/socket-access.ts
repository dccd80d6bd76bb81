import type { WebSocket } from 'ws';
import type { Caller } from '../auth/caller';
import type { Clock } from '../support/clock';
import type { KeyAccess, Withdrawal } from '../auth/key-access';

/** graphql-ws's own code for a refused key (connection_init), used for every loss of access. */
export const FORBIDDEN_CLOSE = 4403;

/** Close reasons (at most 123 bytes): what the client is told. */
export const CLOSE_REASONS = {
  revoked: 'Forbidden: the API key is no longer valid',
  signedOut: 'Forbidden: the session has ended (signed out)',
  expired: 'Forbidden: the API key has expired',
  suspended: 'Forbidden: the organization is suspended',
} as const;

/** setTimeout holds at most 2^31-1 ms; a later expiry is reached in steps of a day. */
const MAX_TIMER_MS = 24 * 60 * 60 * 1000;

interface OpenSocket {
  socket: WebSocket;
  caller: Caller;
  cancelExpiry: (() => void) | null;
}

/**
 * This node's authenticated graphql-ws sockets, by key and by org. A withdrawal (a revoked
 * key, a suspended org: announced by KeyAccess, from this node or over the bus) closes
 * them with 4403; a key's expiry closes them when it comes (a timer on the access clock).
 */
export class OpenSockets {
  private readonly byKey = new Map<string, Set<OpenSocket>>();
  private readonly byOrg = new Map<string, Set<OpenSocket>>();
  private readonly bySession = new Map<string, Set<OpenSocket>>();
  private readonly clock: Clock;
  private readonly stopListening: () => void;

  constructor(
    keys: KeyAccess,
    private readonly caps: { perKey: number; perOrg: number },
  ) {
    this.clock = keys.clock;
    this.stopListening = keys.onWithdrawn((withdrawal) => this.withdraw(withdrawal));
  }

  /**
   * Why one more socket of `caller` is refused (WS_MAX_SOCKETS_PER_KEY, WS_MAX_SOCKETS_PER_ORG,
   * counted on this node), as a close reason that starts with its code; null when it fits.
   */
  refusal(caller: Caller): string | null {
    if (caller.keyId && (this.byKey.get(caller.keyId)?.size ?? 0) >= this.caps.perKey) {
      return `SOCKET_LIMIT: this API key already holds ${this.caps.perKey} sockets on this node`;
    }
    if ((this.byOrg.get(caller.orgId)?.size ?? 0) >= this.caps.perOrg) {
      return `SOCKET_LIMIT: this organization already holds ${this.caps.perOrg} sockets on this node`;
    }
    return null;
  }

  add(socket: WebSocket, caller: Caller, expiresAt: number | null): void {
    // A socket that closed while its key was looked up has nothing left to close.
    if (!caller.keyId || socket.readyState !== socket.OPEN) return;
    const entry: OpenSocket = { socket, caller, cancelExpiry: null };
    addTo(this.byKey, caller.keyId, entry);
    addTo(this.byOrg, caller.orgId, entry);
    if (caller.sessionId) addTo(this.bySession, caller.sessionId, entry);
    if (expiresAt !== null) this.expireAt(entry, expiresAt);
    socket.once('close', () => this.remove(entry));
  }

  /** Closes one socket with 4403 (its key was found invalid on an operation). */
  close(socket: WebSocket, reason: string): void {
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(FORBIDDEN_CLOSE, reason);
  }

  dispose(): void {
    this.stopListening();
    for (const set of this.byKey.values()) for (const entry of set) entry.cancelExpiry?.();
    this.byKey.clear();
    this.byOrg.clear();
    this.bySession.clear();
  }

  private withdraw(withdrawal: Withdrawal): void {
    const entries =
      'keyId' in withdrawal
        ? this.byKey.get(withdrawal.keyId)
        : 'orgId' in withdrawal
          ? this.byOrg.get(withdrawal.orgId)
          : this.bySession.get(withdrawal.sessionId);
    const reason = 'keyId' in withdrawal ? CLOSE_REASONS.revoked : 'orgId' in withdrawal ? CLOSE_REASONS.suspended : CLOSE_REASONS.signedOut;
    for (const entry of [...(entries ?? [])]) this.close(entry.socket, reason);
  }

  private expireAt(entry: OpenSocket, expiresAt: number): void {
    const wait = expiresAt - this.clock.now();
    if (wait <= 0) {
      this.close(entry.socket, CLOSE_REASONS.expired);
      return;
    }
    entry.cancelExpiry = this.clock.after(Math.min(wait, MAX_TIMER_MS), () => {
      entry.cancelExpiry = null;
      this.expireAt(entry, expiresAt);
    });
  }

  private remove(entry: OpenSocket): void {
    entry.cancelExpiry?.();
    entry.cancelExpiry = null;
    removeFrom(this.byKey, entry.caller.keyId!, entry);
    removeFrom(this.byOrg, entry.caller.orgId, entry);
    if (entry.caller.sessionId) removeFrom(this.bySession, entry.caller.sessionId, entry);
  }
}

function addTo(map: Map<string, Set<OpenSocket>>, id: string, entry: OpenSocket): void {
  let set = map.get(id);
  if (!set) {
    set = new Set();
    map.set(id, set);
  }
  set.add(entry);
}

function removeFrom(map: Map<string, Set<OpenSocket>>, id: string, entry: OpenSocket): void {
  const set = map.get(id);
  if (!set) return;
  set.delete(entry);
  if (set.size === 0) map.delete(id);
}
