#!/usr/bin/env node
import 'reflect-metadata';
import fs from 'node:fs/promises';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from './config';
import { describeSettings } from './config-describe';
import { createLogger, type Logger } from './logger';
import { startToolgate } from './main';
import { seedDemo } from './seed/demo-seed';
import { createKey, createOrg } from './orgs/org.service';
import { countByKeyVersion, rotateCredentials } from './credentials/credential-rotation';
import { isRole, ROLES } from './auth/roles';
import { AppError } from './errors/app-error';
import { buildToolgateSchema, printToolgateSchema } from './api/schema';
import { OfflineModelServer } from './llm/dev-double/offline-model.server';
import { MIGRATIONS_DIR } from './db/orm';
import { DEFAULT_SANDBOX_PORT, serveVendorSandboxes } from './vendors/sandbox/sandbox-process';
import { UsageError, describeSeed, describeVersions, verifyLedgers, withRuntime, writeMigrationIndex } from './cli-commands';

const USAGE = `Usage: toolgate <command> [options]

Commands:
  start                                  run the API (GraphQL on /graphql, websockets on the same path)
  migrate                                apply pending database migrations
  seed [--json]                          create the demo org (idempotent) and print fresh keys
  org create --name NAME [--json]        create a tenant and its first admin key
  keys create --org ID --role ROLE [--json]
                                         issue an API key (roles: ${ROLES.join(', ')})
  ledger verify [--org ID] [--json]      recompute the audit hash chains; exit 1 when one is broken
  credentials rotate [--batch N]         re-wrap every credential with the newest master key (online, resumable)
  credentials status                     credentials per master key version
  model-server [--port N]                serve the offline Anthropic-compatible model (default port 4010)
  sandboxes [--port N] [--host H]        serve the vendor sandboxes in their own process (default port 4020; VENDOR_SANDBOX_URL)
  schema [--out FILE]                    print the GraphQL schema (SDL)
  migration:create [--name NAME]         generate a migration from entity changes

Without DATABASE_URL every command uses the embedded PostgreSQL in TOOLGATE_DATA_DIR (.toolgate/).`;

type Flags = Record<string, string | true>;

function parseArgs(argv: string[]): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split('=', 2);
      if (inline !== undefined) flags[name] = inline;
      else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) flags[name] = argv[++i];
      else flags[name] = true;
    } else {
      words.push(arg);
    }
  }
  return { words, flags };
}

function requireFlag(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

async function main(argv: string[]): Promise<number> {
  const { words, flags } = parseArgs(argv);
  const command = words.join(' ');
  if (command === '' || command === 'help' || flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return command === '' && !flags.help ? 2 : 0;
  }
  if (command === 'model-server') {
    const port = typeof flags.port === 'string' ? Number(flags.port) : 4010;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a port number');
    const server = new OfflineModelServer();
    const url = await server.start(port, typeof flags.host === 'string' ? flags.host : '127.0.0.1');
    process.stdout.write(`Offline model serving ${url}/v1/messages (ANTHROPIC_BASE_URL=${url})\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGTERM', resolve);
      process.once('SIGINT', resolve);
    });
    await server.stop();
    return 0;
  }
  if (command === 'sandboxes') {
    const port = typeof flags.port === 'string' ? Number(flags.port) : DEFAULT_SANDBOX_PORT;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a port number');
    const served = await serveVendorSandboxes({ port, host: typeof flags.host === 'string' ? flags.host : '127.0.0.1' });
    process.stdout.write(`Vendor sandboxes serving ${served.url} (VENDOR_SANDBOX_URL=${served.url})\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGTERM', resolve);
      process.once('SIGINT', resolve);
    });
    await served.stop();
    return 0;
  }
  if (command === 'schema') {
    const sdl = printToolgateSchema(await buildToolgateSchema());
    if (typeof flags.out === 'string') await fs.writeFile(flags.out, sdl);
    else process.stdout.write(sdl);
    return 0;
  }
  const config = loadConfig();
  // Commands other than `start` keep stdout for their output; logs go to stderr.
  const logger = createLogger(config, command === 'start' ? undefined : pino.destination(2));
  switch (command) {
    case 'start':
      return start(config, logger);
    case 'migrate':
      return withRuntime(config, logger, async () => {
        process.stdout.write('Migrations are up to date.\n');
      });
    case 'seed':
      return withRuntime(config, logger, async (runtime) => {
        const result = await seedDemo(runtime.orm.em.fork(), runtime.keyring);
        const { orgId, specialistId, keys } = result;
        process.stdout.write(flags.json ? `${JSON.stringify({ orgId, specialistId, keys })}\n` : describeSeed(result, null));
      });
    case 'org create': {
      const name = requireFlag(flags, 'name');
      return withRuntime(
        config,
        logger,
        async (runtime) => {
          const { org, adminKey } = await createOrg(runtime.orm.em.fork(), { name });
          const out = { orgId: org.id, name: org.name, adminKey: adminKey.secret };
          process.stdout.write(
            flags.json ? `${JSON.stringify(out)}\n` : `Created org ${org.name} (${org.id}).\nAdmin key (shown once): ${adminKey.secret}\n`,
          );
        },
        { migrate: false },
      );
    }
    case 'keys create': {
      const orgId = requireFlag(flags, 'org');
      const role = requireFlag(flags, 'role');
      if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      return withRuntime(
        config,
        logger,
        async (runtime) => {
          const key = await createKey(runtime.orm.em.fork(), orgId, role);
          process.stdout.write(
            flags.json ? `${JSON.stringify({ id: key.id, orgId, role, key: key.secret })}\n` : `${role} key (shown once): ${key.secret}\n`,
          );
        },
        { migrate: false },
      );
    }
    case 'ledger verify':
      return verifyLedgers(config, logger, typeof flags.org === 'string' ? flags.org : null, Boolean(flags.json));
    case 'credentials rotate': {
      const batch = typeof flags.batch === 'string' ? Number(flags.batch) : 100;
      if (!Number.isInteger(batch) || batch < 1 || batch > 10_000) throw new UsageError('--batch must be an integer from 1 to 10000');
      return withRuntime(
        config,
        logger,
        async (runtime) => {
          const report = await rotateCredentials(runtime.orm, runtime.keyring, {
            batchSize: batch,
            onBatch: (rotated) => logger.info({ rotated }, 'credentials re-wrapped so far'),
          });
          process.stdout.write(
            `Re-wrapped ${report.rotated} credential(s) with master key v${runtime.keyring.current.version}.\n` +
              describeVersions(report.byKeyVersion, runtime.keyring.current.version),
          );
        },
        { migrate: false },
      );
    }
    case 'credentials status':
      return withRuntime(
        config,
        logger,
        async (runtime) => {
          const counts = await countByKeyVersion(runtime.orm.em.fork());
          process.stdout.write(describeVersions(counts, runtime.keyring.current.version));
        },
        { migrate: false },
      );
    case 'migration:create':
      return withRuntime(config, logger, async (runtime) => {
        const name = typeof flags.name === 'string' ? flags.name : undefined;
        const result = await runtime.orm.getMigrator().createMigration(MIGRATIONS_DIR, false, false, name);
        if (!result.fileName) {
          process.stdout.write('No entity changes: no migration created.\n');
          return;
        }
        await writeMigrationIndex();
        process.stdout.write(`Created migrations/${result.fileName}; \`npm run build\` then \`toolgate migrate\` applies it.\n`);
      });
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

/**
 * Runs a command on the database. Setup commands migrate it; the others refuse a
 * database that is not migrated, so a mistyped DATABASE_URL is not silently filled.
 */
async function start(config: Config, logger: Logger): Promise<number> {
  logger.info({ settings: describeSettings(config) }, 'starting Toolgate');
  const toolgate = await startToolgate(config, logger);
  logger.info({ url: toolgate.server.url }, 'Toolgate is listening');
  process.stdout.write(describeSeed(toolgate.seeded, toolgate));
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'shutting down');
      // The shutdown keeps to SHUTDOWN_TIMEOUT_MS itself; this is the last resort if closing hangs.
      const timer = setTimeout(() => {
        logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown timed out; exiting');
        resolve(1);
      }, config.shutdownTimeoutMs + 5000);
      timer.unref();
      toolgate.shutdown().then(
        (report) => {
          clearTimeout(timer);
          if (report.drained) {
            logger.info('shutdown complete');
            resolve(0);
            return;
          }
          // Nothing is lost (live nodes, or the next start, reconcile it), but the operator should know.
          logger.warn({ handedOver: report.handedOver.length }, 'shutdown incomplete: work still running was handed to reconciliation');
          resolve(1);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`toolgate: ${error.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`toolgate: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof AppError) {
      process.stderr.write(`toolgate: ${error.code}: ${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`toolgate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
