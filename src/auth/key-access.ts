import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../support/clock';
import type { Logger } from '../support/logger';
import type { EventBus } from '../realtime/event-bus';
import { rawStatements } from '../db/raw-transaction';
import { isUuid } from '../db/ids';
import { authenticate, checkKey, type ValidKey } from './api-key.service';
import { KeyUsage } from './key-usage';

/** Access taken away: one key (revoked), every key of an org (suspended), or one person's session (signed out). */
export type Withdrawal = { keyId: string } | { orgId: string } | { sessionId: string };

/**
 * The API-key checks of every transport (HTTP, websocket, MCP), with expiry on the injected
 * clock and each use noted for `lastUsedAt` (KeyUsage). A revocation or suspension is
 * announced to this node's listeners at once and to the other nodes over the event bus
 * (channel `access`), so that open websockets of the key are closed everywhere.
 */
export class KeyAccess {
  readonly usage: KeyUsage;
  private readonly listeners = new Set<(withdrawal: Withdrawal) => void>();
  private unsubscribe: (() => Promise<void>) | null = null;

  constructor(
    private readonly orm: MikroORM,
    readonly clock: Clock,
    private readonly bus: EventBus,
    private readonly logger: Logger,
  ) {
    this.usage = new KeyUsage(orm, clock, logger);
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe('access', (message) => {
      const withdrawal = parseWithdrawal(message);
      if (withdrawal) this.notify(withdrawal);
    });
  }

  /** A secret presented on a request or a new connection. */
  async authenticate(secret: string): Promise<ValidKey> {
    const valid = await authenticate(rawStatements(this.orm), secret, this.clock.now());
    this.usage.touch(valid.caller.keyId!);
    return valid;
  }

  /** A key already identified, checked again (each websocket operation); `use: false` for a re-check that is no use of the key. */
  async check(keyId: string, options: { use: boolean } = { use: true }): Promise<ValidKey> {
    const valid = await checkKey(rawStatements(this.orm), keyId, this.clock.now());
    if (options.use) this.usage.touch(keyId);
    return valid;
  }

  onWithdrawn(listener: (withdrawal: Withdrawal) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** After the commit that revoked or suspended: here at once, elsewhere over the bus. */
  async withdrawn(withdrawal: Withdrawal): Promise<void> {
    this.notify(withdrawal);
    await publishWithdrawal(this.bus, withdrawal).catch((error: unknown) =>
      this.logger.warn({ err: error, ...withdrawal }, 'could not announce an access withdrawal to the other nodes'),
    );
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
    this.unsubscribe = null;
    await this.usage.stop();
  }

  private notify(withdrawal: Withdrawal): void {
    for (const listener of this.listeners) listener(withdrawal);
  }
}

/** For a process without KeyAccess (the `toolgate` command): the nodes' sockets of the key or org close. */
export function publishWithdrawal(bus: EventBus, withdrawal: Withdrawal): Promise<void> {
  const message =
    'keyId' in withdrawal ? `key:${withdrawal.keyId}` : 'orgId' in withdrawal ? `org:${withdrawal.orgId}` : `session:${withdrawal.sessionId}`;
  return bus.publish('access', message);
}

function parseWithdrawal(message: string): Withdrawal | null {
  const [kind, id] = message.split(':', 2);
  if (!id || !isUuid(id)) return null;
  if (kind === 'key') return { keyId: id };
  if (kind === 'org') return { orgId: id };
  if (kind === 'session') return { sessionId: id };
  return null;
}
