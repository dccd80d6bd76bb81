// What the `toolgate` commands share: configuration, the database, output, groups.
import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig, type Config } from '../config';
import { createLogger, type Logger } from '../support/logger';
import type { Runtime } from '../app/main';
import { UsageError, withRuntime } from './commands';

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`);
  return value;
}

/** Configuration and a logger for a command on the database; logs go to stderr, stdout is the output. */
export function setup(overrides: Partial<Config> = {}, toStdout = false): { config: Config; logger: Logger } {
  const config = { ...loadConfig(), ...overrides };
  return { config, logger: createLogger(config, toStdout ? 1 : 2) };
}

/** Runs `work` on the database (see withRuntime): setup commands migrate it, the others require it migrated. */
export function onDatabase(work: (runtime: Runtime, logger: Logger, config: Config) => Promise<void>, options = { migrate: true }): Promise<number> {
  const { config, logger } = setup();
  return withRuntime(config, logger, (runtime) => work(runtime, logger, config), options);
}

export function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('--port must be a port number (0-65535)');
  return port;
}

export const json = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

/** A group such as `ledger`: run alone, it lists its subcommands (help) and exits 2. */
export function group(parent: Command, name: string, description: string): Command {
  return parent.command(name).description(description);
}
