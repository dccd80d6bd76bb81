import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { AppError } from '../errors/app-error';

/** A 2025-era session: its transport, and whose it is (a session id alone grants nothing). */
export interface McpSession {
  transport: NodeStreamableHTTPServerTransport;
  keyId: string | null;
  /** The endpoint it was opened on, e.g. `runs/<id>`. */
  endpoint: string;
  lastSeen: number;
}

const IDLE_MS = 30 * 60_000;

/**
 * The 2025-era sessions of this node, in memory (a session is one transport instance, so a
 * client stays on the node that opened it; the 2026 era is stateless). A session idle for
 * 30 minutes is closed; its run stays, and a new session can bind to it by `/mcp/runs/:id`.
 * A key holds at most `perKey` of them on this node (MCP_MAX_SESSIONS_PER_KEY).
 */
export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  /** Slots taken by sessions still being opened (their run bound, their initialize answered), by key. */
  private readonly opening = new Map<string | null, number>();
  private readonly sweep = setInterval(() => void this.closeIdle(Date.now() - IDLE_MS), 60_000);

  constructor(private readonly perKey: number) {
    this.sweep.unref();
  }

  /**
   * Takes one of the key's session slots for a session about to open, synchronously (so
   * concurrent initializes cannot all pass); MCP_SESSION_LIMIT when none is free. The
   * returned release is called once the open attempt ended, whether a session was added or not.
   */
  reserve(keyId: string | null): () => void {
    let held = this.opening.get(keyId) ?? 0;
    for (const session of this.sessions.values()) if (session.keyId === keyId) held += 1;
    if (held >= this.perKey) {
      throw new AppError(
        'MCP_SESSION_LIMIT',
        `This API key already holds ${this.perKey} MCP sessions; close one (DELETE) or wait for one to idle out`,
        {
          limit: this.perKey,
        },
      );
    }
    this.opening.set(keyId, (this.opening.get(keyId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.opening.get(keyId) ?? 1) - 1;
      if (left > 0) this.opening.set(keyId, left);
      else this.opening.delete(keyId);
    };
  }

  add(sessionId: string, session: Omit<McpSession, 'lastSeen'>): void {
    this.sessions.set(sessionId, { ...session, lastSeen: Date.now() });
  }

  /** The session, only for the key and endpoint that opened it. */
  find(sessionId: string, keyId: string | null, endpoint: string): McpSession | null {
    const session = this.sessions.get(sessionId);
    if (!session || session.keyId !== keyId || session.endpoint !== endpoint) return null;
    session.lastSeen = Date.now();
    return session;
  }

  delete(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  private async closeIdle(before: number): Promise<void> {
    for (const [id, session] of this.sessions) {
      if (session.lastSeen < before) {
        this.sessions.delete(id);
        await session.transport.close().catch(() => undefined);
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    await this.closeIdle(Number.POSITIVE_INFINITY);
  }
}
