// The `toolgate` command line (commander): each command, its options and its help.
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import type { Config } from '../config';
import type { Runtime } from '../app/main';
import type { Logger } from '../support/logger';
import { seedDemo } from '../seed/demo-seed';
import { countByKeyVersion, rotateCredentials } from '../credentials/credential-rotation';
import { buildToolgateSchema, printToolgateSchema } from '../api/schema';
import { OfflineModelServer } from '../llm/dev-double/offline-model.server';
import { MIGRATIONS_DIR } from '../db/orm';
import { projectRoot } from '../support/paths';
import { DEFAULT_SANDBOX_PORT, serveVendorSandboxes } from '../vendors/sandbox/sandbox-process';
import { UsageError, describeSeed, describeVersions, writeMigrationIndex } from './commands';
import { exportFormat, exportLedgerEvents, exportRange, verifyExportFile, verifyLedgers, writeCheckpoint } from './ledger';
import { start } from './start';
import { addPersistedCommands } from './persisted';
import { addPolicyCommands } from './policy';
import { addDevIdpCommand } from './dev-idp';
import { addIdentityCommands } from './identity';
import { group, json, onDatabase, portNumber, setup } from './support';
import { addTenantCommands, announceRevokedKeys } from './tenants';

interface Run {
  /** The command's exit code, once it is done. */
  exitCode: number;
}

/** A command that serves on --port/--host until SIGTERM or SIGINT, then stops and exits 0. */
function serving(
  program: Command,
  name: string,
  description: string,
  defaultPort: number,
  serve: (port: number, host: string) => Promise<{ line: string; stop(): Promise<void> }>,
): void {
  program
    .command(name)
    .description(description)
    .option('--port <n>', 'port', portNumber, defaultPort)
    .option('--host <host>', 'address', '127.0.0.1')
    .action(async (opts: { port: number; host: string }) => {
      const served = await serve(opts.port, opts.host);
      process.stdout.write(`${served.line}\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGTERM', resolve);
        process.once('SIGINT', resolve);
      });
      await served.stop();
    });
}

export function buildProgram(run: Run): Command {
  const version = (JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  const program = new Command('toolgate')
    .description('Governed tool execution for LLM agents, served as a GraphQL API.')
    .version(version, '-v, --version')
    .option('--verbose', 'print stack traces of failures')
    .showSuggestionAfterError()
    .addHelpText('after', '\nWithout DATABASE_URL every command uses the embedded PostgreSQL in TOOLGATE_DATA_DIR (.toolgate/).');
  const done = (code: number) => {
    run.exitCode = code;
  };

  program
    .command('start')
    .description(
      'run the API (GraphQL on /graphql, websockets on the same path), the job worker and, by default, the offline model and vendor sandboxes',
    )
    .option('--port <n>', 'listen on this port (overrides PORT)', portNumber)
    .option('--host <host>', 'listen on this address (overrides HOST)')
    .action(async (opts: { port?: number; host?: string }) => {
      const overrides: Partial<Config> = {};
      if (opts.port !== undefined) overrides.port = opts.port;
      if (opts.host !== undefined) overrides.host = opts.host;
      const { config, logger } = setup(overrides, true);
      done(await start(config, logger));
    });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      done(await onDatabase(async () => void process.stdout.write('Migrations are up to date.\n')));
    });

  program
    .command('seed')
    .description('create the demo org (idempotent) and print fresh keys; the demo keys an earlier seed printed are revoked')
    .option('--json', 'print {"orgId","specialistId","keys"} as one line')
    .action(async (opts: { json?: boolean }) => {
      const seeding = async (runtime: Runtime, logger: Logger, config: Config) => {
        const result = await seedDemo(runtime.orm.em.fork(), runtime.keyring);
        await announceRevokedKeys(config, runtime, logger, result.revokedKeyIds);
        const { orgId, specialistId, keys } = result;
        if (opts.json) json({ orgId, specialistId, keys });
        else process.stdout.write(describeSeed(result));
      };
      done(await onDatabase(seeding));
    });

  addTenantCommands(program, done);

  const ledger = group(program, 'ledger', 'the audit ledger');
  ledger
    .command('verify')
    .description('recompute the audit hash chains against their heads (and a signed checkpoint); exit 1 when one is broken')
    .option('--org <id>', 'only this org')
    .option('--json', 'one JSON line per org')
    .option('--checkpoint <file>', 'also require the chains to hold the heads of this signed checkpoint')
    .option('--public-key <file>', "the checkpoint signer's Ed25519 public key (default: TOOLGATE_LEDGER_SIGNING_KEY's)")
    .option('--file <export>', 'verify this export (`ledger export`) offline instead of the database')
    .option('--format <format>', "the export's format, jsonl or csv (default: from its name or first byte)")
    .action(async (opts: { org?: string; json?: boolean; checkpoint?: string; publicKey?: string; file?: string; format?: string }) => {
      const { config, logger } = setup();
      if (opts.file) {
        if (opts.org) throw new UsageError('--file verifies the export of one org as it is; --org does not apply');
        const format = opts.format === undefined ? null : exportFormat(opts.format);
        const fileOptions = {
          file: opts.file,
          format,
          json: Boolean(opts.json),
          checkpointFile: opts.checkpoint ?? null,
          publicKeyFile: opts.publicKey ?? null,
        };
        return done(await verifyExportFile(config, fileOptions));
      }
      if (opts.format) throw new UsageError('--format applies to --file only');
      const options = {
        orgId: opts.org ?? null,
        json: Boolean(opts.json),
        checkpointFile: opts.checkpoint ?? null,
        publicKeyFile: opts.publicKey ?? null,
      };
      done(await verifyLedgers(config, logger, options));
    });
  ledger
    .command('export')
    .description("stream an org's audit events with their hashes (JSON Lines or CSV); `ledger verify --file` checks the export offline")
    .requiredOption('--org <id>', 'the org whose chain is exported')
    .option('--from <time>', 'events created at or after this ISO 8601 date or timestamp')
    .option('--to <time>', 'events created before this ISO 8601 date or timestamp')
    .option('--format <format>', 'jsonl or csv', 'jsonl')
    .option('--out <file>', 'write it to this new file instead of stdout')
    .action(async (opts: { org: string; from?: string; to?: string; format: string; out?: string }) => {
      const options = { orgId: opts.org, format: exportFormat(opts.format), range: exportRange(opts.from, opts.to), out: opts.out ?? null };
      const { config, logger } = setup();
      done(await exportLedgerEvents(config, logger, options));
    });
  ledger
    .command('checkpoint')
    .description("sign every org's chain head with TOOLGATE_LEDGER_SIGNING_KEY; keep the statement outside the database")
    .option('--out <file>', 'write it to this new file instead of stdout')
    .action(async (opts: { out?: string }) => {
      const { config, logger } = setup();
      done(await writeCheckpoint(config, logger, opts.out ?? null));
    });

  addPolicyCommands(program, done);
  addIdentityCommands(program, done);

  const credentials = group(program, 'credentials', 'vendor credentials and master keys');
  credentials
    .command('rotate')
    .description('re-wrap every credential with the newest master key (online, resumable)')
    .option('--batch <n>', 'credentials per transaction (1-10000)', '100')
    .action(async (opts: { batch: string }) => {
      const batch = Number(opts.batch);
      if (!/^\d+$/.test(opts.batch) || batch < 1 || batch > 10_000) throw new UsageError('--batch must be an integer from 1 to 10000');
      const rotating = async (runtime: Runtime, logger: Logger) => {
        const report = await rotateCredentials(runtime.orm, runtime.keyring, {
          batchSize: batch,
          onBatch: (rotated) => logger.info({ rotated }, 'credentials re-wrapped so far'),
        });
        const current = runtime.keyring.current.version;
        process.stdout.write(
          `Re-wrapped ${report.rotated} credential(s) with master key v${current}.\n${describeVersions(report.byKeyVersion, current)}`,
        );
      };
      done(await onDatabase(rotating, { migrate: false }));
    });
  credentials
    .command('status')
    .description('credentials per master key version')
    .action(async () => {
      const counting = async (runtime: Runtime) => {
        const counts = await countByKeyVersion(runtime.orm.em.fork());
        process.stdout.write(describeVersions(counts, runtime.keyring.current.version));
      };
      done(await onDatabase(counting, { migrate: false }));
    });

  serving(
    program,
    'model-server',
    'serve the offline Anthropic-compatible model alone (ANTHROPIC_BASE_URL for another process)',
    4010,
    async (port, host) => {
      const server = new OfflineModelServer();
      const url = await server.start(port, host);
      return { line: `Offline model serving ${url}/v1/messages (ANTHROPIC_BASE_URL=${url})`, stop: () => server.stop() };
    },
  );
  serving(
    program,
    'sandboxes',
    'serve the vendor sandboxes in their own process (VENDOR_SANDBOX_URL for Toolgate nodes)',
    DEFAULT_SANDBOX_PORT,
    async (port, host) => {
      const served = await serveVendorSandboxes({ port, host });
      return { line: `Vendor sandboxes serving ${served.url} (VENDOR_SANDBOX_URL=${served.url})`, stop: () => served.stop() };
    },
  );

  addDevIdpCommand(program);

  program
    .command('schema')
    .description('print the GraphQL schema (SDL)')
    .option('--out <file>', 'write it to this file instead')
    .action(async (opts: { out?: string }) => {
      const sdl = printToolgateSchema(await buildToolgateSchema());
      if (opts.out) fs.writeFileSync(opts.out, sdl);
      else process.stdout.write(sdl);
      done(0);
    });

  addPersistedCommands(program, done);

  program
    .command('migration:create')
    .description('generate a migration from entity changes into migrations/')
    .option('--name <name>', 'a name for the migration')
    .action(async (opts: { name?: string }) => {
      const generating = async (runtime: Runtime) => {
        const result = await runtime.orm.getMigrator().createMigration(MIGRATIONS_DIR, false, false, opts.name);
        if (!result.fileName) {
          process.stdout.write('No entity changes: no migration created.\n');
          return;
        }
        await writeMigrationIndex();
        process.stdout.write(`Created migrations/${result.fileName}; \`npm run build\` then \`toolgate migrate\` applies it.\n`);
      };
      done(await onDatabase(generating));
    });

  return program;
}
