import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';

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
 */
export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweep = setInterval(() => void this.closeIdle(Date.now() - IDLE_MS), 60_000);

  constructor() {
    this.sweep.unref();
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
