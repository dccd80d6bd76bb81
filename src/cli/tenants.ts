// `toolgate org …` and `toolgate keys …`: tenants, their API keys and suspension.
import { type Command, InvalidArgumentError } from 'commander';
import type { Config } from '../config';
import type { Logger } from '../support/logger';
import type { Runtime } from '../app/main';
import { systemClock } from '../support/clock';
import { createOrg, findOrg } from '../orgs/org.service';
import { resumeOrg, suspendOrg } from '../orgs/org-suspension.service';
import { createApiKey, listApiKeys, revokeApiKey } from '../auth/key-lifecycle.service';
import { publishWithdrawal, type Withdrawal } from '../auth/key-access';
import type { ApiKey } from '../auth/api-key.entity';
import { isRole, ROLES } from '../auth/roles';
import { createEventBus } from '../realtime/realtime';
import type { EventBus } from '../realtime/event-bus';
import { MAX_PAGE_SIZE, type Connection } from '../graphql/paging';
import { UsageError } from './commands';
import { group, json, onDatabase, required } from './support';

/** `--expires`: an ISO 8601 time (`2027-01-31T00:00:00Z`) or a span from now (`90d`, `12h`, `30m`). */
export function parseExpiry(value: string, now = systemClock.now()): Date {
  const span = /^(\d{1,6})([dhm])$/.exec(value);
  const at = span ? now + Number(span[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[span[2] as 'd' | 'h' | 'm'] : Date.parse(value);
  if (!span && !/^\d{4}-\d{2}-\d{2}/.test(value))
    throw new InvalidArgumentError('--expires must be an ISO 8601 time or a span such as 90d, 12h, 30m');
  if (Number.isNaN(at) || at > Date.parse('9999-12-31T23:59:59.999Z')) throw new InvalidArgumentError('--expires is not a valid time');
  if (at <= now) throw new InvalidArgumentError('--expires must be in the future');
  return new Date(at);
}

/** How long a command waits for the bus before it gives up telling the nodes (the change is committed). */
const ANNOUNCE_TIMEOUT_MS = 5000;

/**
 * Tells the running nodes (over the configured event bus) to close the open websockets of
 * revoked keys or a suspended org. Their HTTP and websocket operations are refused from the
 * commit on regardless; without a shared bus (EVENT_BUS=in-process), or when the bus does
 * not answer within 5 s, only the open sockets wait for their next operation to be refused.
 */
async function announce(config: Config, runtime: Runtime, logger: Logger, withdrawals: Withdrawal[]): Promise<void> {
  if (withdrawals.length === 0 || config.eventBus === 'in-process') return;
  let bus: EventBus | undefined;
  let timer: NodeJS.Timeout | undefined;
  const publishing = (async () => {
    bus = await createEventBus(config, runtime.databaseUrl, logger);
    for (const withdrawal of withdrawals) await publishWithdrawal(bus, withdrawal);
  })();
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the event bus did not answer within ${ANNOUNCE_TIMEOUT_MS} ms`)), ANNOUNCE_TIMEOUT_MS);
  });
  try {
    await Promise.race([publishing, timeout]);
  } catch (error) {
    logger.warn({ err: error }, 'could not tell the running nodes; open websockets close at their next operation');
  } finally {
    clearTimeout(timer);
    publishing.catch(() => undefined);
    await (bus as EventBus | undefined)?.close().catch(() => undefined);
  }
}

const keyView = (key: ApiKey, orgId: string) => ({
  id: key.id,
  orgId,
  role: key.role,
  name: key.name,
  prefix: key.prefix,
  createdAt: key.createdAt.toISOString(),
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  expiresAt: key.expiresAt?.toISOString() ?? null,
  revokedAt: key.revokedAt?.toISOString() ?? null,
});

function keyLine(key: ReturnType<typeof keyView>, now: number): string {
  const state = key.revokedAt
    ? `revoked ${key.revokedAt}`
    : key.expiresAt && Date.parse(key.expiresAt) <= now
      ? `expired ${key.expiresAt}`
      : `active${key.expiresAt ? ` until ${key.expiresAt}` : ''}`;
  const used = key.lastUsedAt ? `last used ${key.lastUsedAt}` : 'never used';
  return `${key.id}  ${key.role.padEnd(7)}  ${`${key.prefix}…`.padEnd(18)}  ${state}; created ${key.createdAt}, ${used}${key.name ? `  "${key.name}"` : ''}`;
}

export function addTenantCommands(program: Command, done: (code: number) => void): void {
  const org = group(program, 'org', 'tenants: create, suspend, resume');
  org
    .command('create')
    .description('create a tenant and its first admin key')
    .option('--name <name>', 'the org name (required)')
    .option('--json', 'print {"orgId","name","adminKey"} as one line')
    .action(async (opts: { name?: string; json?: boolean }) => {
      const name = required(opts.name, '--name');
      const creating = async (runtime: Runtime) => {
        const { org, adminKey } = await createOrg(runtime.orm.em.fork(), { name });
        if (opts.json) json({ orgId: org.id, name: org.name, adminKey: adminKey.secret });
        else process.stdout.write(`Created org ${org.name} (${org.id}).\nAdmin key (shown once): ${adminKey.secret}\n`);
      };
      done(await onDatabase(creating, { migrate: false }));
    });
  for (const suspend of [true, false]) {
    const command = org
      .command(suspend ? 'suspend' : 'resume')
      .argument('<orgId>', 'the org')
      .description(
        suspend
          ? 'suspend a tenant: every key of it is refused (ORG_SUSPENDED), its open websockets close (4403), no tool call runs and its runs fail; recorded in its ledger'
          : 'lift a suspension: the org’s keys that are not revoked or expired work again; recorded in its ledger',
      )
      .option('--json', 'print {"orgId","suspended","changed"} as one line');
    if (suspend) command.option('--reason <text>', 'why, recorded in the ledger event');
    command.action(async (orgId: string, opts: { json?: boolean; reason?: string }) => {
      if (opts.reason !== undefined && (opts.reason.length > 500 || opts.reason.includes('\u0000'))) {
        throw new UsageError('--reason must be at most 500 characters');
      }
      const changing = async (runtime: Runtime, logger: Logger, config: Config) => {
        const em = runtime.orm.em.fork();
        const { org, changed } = suspend ? await suspendOrg(em, orgId, opts.reason ?? null) : await resumeOrg(em, orgId);
        if (suspend && changed) await announce(config, runtime, logger, [{ orgId: org.id }]);
        if (opts.json) json({ orgId: org.id, suspended: org.suspendedAt !== null, changed });
        else if (!changed) process.stdout.write(`Org ${org.name} (${org.id}) was already ${suspend ? 'suspended' : 'active'}; nothing changed.\n`);
        else if (suspend) process.stdout.write(`Suspended org ${org.name} (${org.id}): its keys are refused and its open websockets closed.\n`);
        else process.stdout.write(`Resumed org ${org.name} (${org.id}): its valid keys work again.\n`);
      };
      done(await onDatabase(changing, { migrate: false }));
    });
  }

  const keys = group(program, 'keys', 'API keys: list, create, revoke');
  keys
    .command('list')
    .description('list an org’s API keys, newest first, revoked and expired ones included (never their secrets)')
    .option('--org <id>', 'the org (required)')
    .option('--json', 'one JSON line per key: {"id","orgId","role","name","prefix","createdAt","lastUsedAt","expiresAt","revokedAt"}')
    .action(async (opts: { org?: string; json?: boolean }) => {
      const orgId = required(opts.org, '--org');
      const listing = async (runtime: Runtime) => {
        const em = runtime.orm.em.fork();
        await findOrg(em, orgId);
        let after: string | null = null;
        do {
          const page: Connection<ReturnType<typeof keyView>> = await listApiKeys(em, orgId, { first: MAX_PAGE_SIZE, after }, (key) =>
            keyView(key, orgId),
          );
          for (const { node } of page.edges) process.stdout.write(opts.json ? `${JSON.stringify(node)}\n` : `${keyLine(node, systemClock.now())}\n`);
          after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
        } while (after);
      };
      done(await onDatabase(listing, { migrate: false }));
    });
  keys
    .command('create')
    .description(`issue an API key (roles: ${ROLES.join(', ')}); the key is printed once`)
    .option('--org <id>', 'the org (required)')
    .option('--role <role>', 'the key’s role (required)')
    .option('--name <name>', 'a label, 1-200 characters')
    .option('--expires <when>', 'refuse the key from then on: an ISO 8601 time or a span such as 90d, 12h, 30m', (v: string) => parseExpiry(v))
    .option('--json', 'print {"id","orgId","role","name","expiresAt","key"} as one line')
    .action(async (opts: { org?: string; role?: string; name?: string; expires?: Date; json?: boolean }) => {
      const orgId = required(opts.org, '--org');
      const role = required(opts.role, '--role');
      if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      const issuing = async (runtime: Runtime) => {
        const input = { role, name: opts.name ?? null, expiresAt: opts.expires ?? null };
        const key = await createApiKey(runtime.orm.em.fork(), orgId, input, { actor: null, now: systemClock.now() });
        const expiresAt = key.expiresAt?.toISOString() ?? null;
        if (opts.json) json({ id: key.id, orgId, role, name: key.name, expiresAt, key: key.secret });
        else process.stdout.write(`${role} key ${key.id}${expiresAt ? `, expires ${expiresAt}` : ''} (shown once): ${key.secret}\n`);
      };
      done(await onDatabase(issuing, { migrate: false }));
    });
  keys
    .command('revoke')
    .argument('<keyId>', 'the key’s id (keys list)')
    .description('revoke an API key: refused from now on, its open websockets closed (4403); recorded in the ledger')
    .option('--org <id>', 'the org the key belongs to (required)')
    .option('--json', 'print the key as in keys list, plus "changed", as one line')
    .action(async (keyId: string, opts: { org?: string; json?: boolean }) => {
      const orgId = required(opts.org, '--org');
      const revoking = async (runtime: Runtime, logger: Logger, config: Config) => {
        const { key, revoked } = await revokeApiKey(runtime.orm.em.fork(), orgId, keyId, null);
        if (revoked) await announce(config, runtime, logger, [{ keyId: key.id }]);
        const view = keyView(key, orgId);
        if (opts.json) json({ ...view, changed: revoked });
        else if (revoked) process.stdout.write(`Revoked ${key.role} key ${key.id} (${key.prefix}…).\n`);
        else process.stdout.write(`Key ${key.id} was already revoked at ${view.revokedAt}; nothing changed.\n`);
      };
      done(await onDatabase(revoking, { migrate: false }));
    });
}

/** For `seed`: tell the running nodes the demo keys it replaced are revoked. */
export function announceRevokedKeys(config: Config, runtime: Runtime, logger: Logger, keyIds: string[]): Promise<void> {
  return announce(
    config,
    runtime,
    logger,
    keyIds.map((keyId) => ({ keyId })),
  );
}
