// How the `toolgate` command reports a failure: one line with a stable code, the stack only with --verbose.
import type { CommanderError } from 'commander';
import { ConfigError } from '../config';
import { AppError } from '../errors/app-error';
import type { ErrorCode } from '../errors/error-codes';
import { unavailableCause } from '../db/unavailable';
import { UsageError } from './commands';

export interface Failure {
  exitCode: number;
  /** What is written to stderr, newline-terminated. */
  text: string;
}

/** The listen address a server could not bind (set on Node's EADDRINUSE error). */
interface AddressError {
  code?: unknown;
  address?: unknown;
  port?: unknown;
}

/**
 * Exit 2 for bad usage or configuration, 1 for an operational failure. Operational
 * failures people meet on a first start (no database, a busy port) name their cause and
 * the way out instead of a driver's stack.
 */
export function describeFailure(error: unknown, verbose: boolean): Failure {
  if (error instanceof UsageError) return { exitCode: 2, text: `toolgate: ${error.message}\n(--help for usage)\n` };
  if (error instanceof ConfigError) return { exitCode: 2, text: `toolgate: configuration error: ${error.message}\n` };
  const stack = verbose && error instanceof Error ? `${error.stack}\n` : '';
  const coded = (code: ErrorCode, message: string): Failure => ({ exitCode: 1, text: `toolgate: ${code}: ${message}\n${stack}` });
  if (error instanceof AppError) return coded(error.code, error.message);
  const busy = portInUse(error);
  if (busy) {
    return coded('PORT_IN_USE', `${busy} is already in use; stop the other process or choose another port with --port (or PORT)`);
  }
  const unreachable = unavailableCause(error) as AddressError | undefined;
  if (unreachable) {
    const where = typeof unreachable.port === 'number' ? ` at ${String(unreachable.address ?? 'localhost')}:${unreachable.port}` : '';
    return coded(
      'DATABASE_UNREACHABLE',
      `cannot reach the database${where} (${String(unreachable.code ?? 'connection failed')}); check DATABASE_URL and that PostgreSQL runs`,
    );
  }
  const detail = verbose || !(error instanceof Error) ? stack || String(error) : `${error.message} (--verbose for the stack)`;
  return { exitCode: 1, text: `toolgate: ${detail.trimEnd()}\n` };
}

function portInUse(error: unknown): string | undefined {
  const e = error as AddressError | undefined;
  if (e?.code !== 'EADDRINUSE') return undefined;
  return typeof e.port === 'number' ? `port ${e.port}${typeof e.address === 'string' ? ` on ${e.address}` : ''}` : 'the port';
}

/** Commander's own outcomes: help and --version exit 0, any misuse exits 2. */
export function describeCommanderExit(error: CommanderError, failing: { path: string; help: string }): Failure {
  if (error.exitCode === 0) return { exitCode: 0, text: '' };
  // A command group run without a subcommand: commander has printed its help (the subcommands).
  if (error.code === 'commander.help') return { exitCode: 2, text: 'toolgate: a subcommand is required (listed above)\n' };
  const message = error.message.replace(/^error: /, '').replace(/\n/g, ' ');
  const unknown = /^unknown command '(.+?)'(.*)$/.exec(message);
  if (unknown) return { exitCode: 2, text: `toolgate: Unknown command "${failing.path}${unknown[1]}"${unknown[2]}\n\n${failing.help}` };
  return { exitCode: 2, text: `toolgate: ${message}\n(--help for usage)\n` };
}
