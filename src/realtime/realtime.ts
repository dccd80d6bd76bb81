import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { Logger } from '../support/logger';
import type { RunEvents } from '../runs/run-events';
import type { EventBus } from './event-bus';
import { InProcessBus } from './in-process-bus';
import { PostgresBus } from './postgres-bus';
import { RedisBus } from './redis-bus';
import { LedgerTail } from './ledger-tail';
import { TokenRelay } from './token-relay';
import { publishLedgerCommits } from './ledger-notifier';
import type { ToolgateMetrics } from '../telemetry/metrics';
import { ApprovalPresence } from '../approvals/approval-presence';
import { SharedResolutions } from './shared-resolutions';
import { ApprovalPresenceRelay } from '../approvals/approval-presence-relay';
import type { Clock } from '../support/clock';

export interface Realtime {
  bus: EventBus;
  ledger: LedgerTail;
  tokens: TokenRelay;
  /** Who has which approval open, on every node (approvalPresence; shared on the bus's `presence` channel). */
  presence: ApprovalPresence;
  /** Key checks and event rows shared by this app's subscriptions. */
  resolutions: SharedResolutions;
  stop(): Promise<void>;
}

/** The bus the configuration asks for: Redis when REDIS_URL is set, else PostgreSQL, or in-process. */
export async function createEventBus(config: Config, databaseUrl: string, logger: Logger): Promise<EventBus> {
  const kind = config.eventBus ?? (config.redisUrl ? 'redis' : 'postgres');
  if (kind === 'redis') {
    if (!config.redisUrl) throw new Error('EVENT_BUS=redis needs REDIS_URL');
    return RedisBus.connect(config.redisUrl, logger);
  }
  if (kind === 'postgres') return new PostgresBus(databaseUrl, logger);
  return new InProcessBus();
}

export async function startRealtime(
  orm: MikroORM,
  bus: EventBus,
  runEvents: RunEvents,
  logger: Logger,
  metrics: ToolgateMetrics | undefined,
  presenceTime: { clock: Clock; heartbeatMs: number },
): Promise<Realtime> {
  const log = logger.child({ component: 'realtime' });
  publishLedgerCommits(orm, bus, log);
  const tokens = new TokenRelay(bus, runEvents, log);
  await tokens.start();
  const presence = new ApprovalPresence();
  const relay = new ApprovalPresenceRelay(presence, bus, presenceTime.clock, presenceTime.heartbeatMs, log);
  await relay.start();
  return {
    bus,
    ledger: new LedgerTail(orm, bus, log, metrics),
    tokens,
    presence,
    resolutions: new SharedResolutions(),
    stop: async () => {
      tokens.stop();
      await relay.stop();
      await bus.close();
    },
  };
}
