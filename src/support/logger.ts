import path from 'node:path';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config';

export type { Logger };

/**
 * JSON logs. Field names that carry secrets are censored wherever they appear, as a
 * second line of defence: code never passes secrets to the logger knowingly.
 */
export const REDACTED_LOG_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'connectionParams',
  'config',
  '*.config',
  'secret',
  '*.secret',
  'apiKey',
  '*.apiKey',
  'password',
  '*.password',
  'masterKeys',
  'keyring',
  'encryptedConfig',
  '*.encryptedConfig',
];

type LogSettings = Pick<Config, 'logLevel'> & Partial<Pick<Config, 'nodeEnv' | 'logFormat' | 'fullStacks'>>;

/**
 * `destination`: a stream, or a file descriptor (1 for `start`, 2 for commands whose
 * stdout is their output). On a terminal in development the lines are pretty-printed,
 * and outside production an error's stack is cut to its message and first own frame.
 */
export function createLogger(config: LogSettings, destination: pino.DestinationStream | 1 | 2 = 1): Logger {
  const shortStacks = config.nodeEnv !== undefined && config.nodeEnv !== 'production' && !config.fullStacks;
  return pino(
    {
      level: config.logLevel,
      base: { service: 'toolgate' },
      redact: { paths: REDACTED_LOG_PATHS, censor: '[REDACTED]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: {
        err: (error: Error) => {
          const serialized = pino.stdSerializers.err(withoutValues(error));
          return shortStacks ? shortenStacks(serialized) : serialized;
        },
      },
    },
    typeof destination === 'number' ? streamFor(config, destination) : destination,
  );
}

function streamFor(config: LogSettings, fd: 1 | 2): pino.DestinationStream {
  const terminal = fd === 1 ? process.stdout.isTTY : process.stderr.isTTY;
  const format = config.logFormat ?? (terminal && config.nodeEnv === 'development' ? 'pretty' : 'json');
  if (format === 'json') return pino.destination({ fd, sync: true });
  return pretty({ destination: fd, sync: true, colorize: terminal, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
}

interface DatabaseErrorFields {
  name?: string;
  stack?: string;
  cause?: unknown;
  sqlState?: unknown;
  code?: unknown;
  severity?: unknown;
  routine?: unknown;
  constraint?: unknown;
  table?: unknown;
  column?: unknown;
}

/**
 * A database error's message, detail and the query its ORM wrapper quotes carry parameter
 * values (`invalid input syntax for type uuid: "…"`, `Key (name)=(…) already exists`, the
 * SQL with its parameters): logged as the SQLSTATE and the names of what failed, never values.
 */
function withoutValues(error: Error, depth = 0): Error {
  const fields = error as Error & DatabaseErrorFields;
  const sqlState =
    typeof fields.sqlState === 'string'
      ? fields.sqlState
      : typeof fields.severity === 'string' && typeof fields.routine === 'string' && typeof fields.code === 'string'
        ? fields.code
        : null;
  if (sqlState === null) return error;
  const names = [
    fields.table && `table ${fields.table}`,
    fields.column && `column ${fields.column}`,
    fields.constraint && `constraint ${fields.constraint}`,
  ]
    .filter(Boolean)
    .join(', ');
  const scrubbed = new Error(`database error SQLSTATE ${sqlState}${names ? ` (${names})` : ''}`) as Error & DatabaseErrorFields;
  scrubbed.name = error.name;
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  scrubbed.stack = [`${error.name}: ${scrubbed.message}`, ...frames].join('\n');
  Object.assign(scrubbed, { sqlState, constraint: fields.constraint, table: fields.table, column: fields.column });
  if (fields.cause instanceof Error && depth < 3) scrubbed.cause = withoutValues(fields.cause, depth + 1);
  return scrubbed;
}

/** The message line and the first frame outside node_modules and Node itself, its path relative to the working folder. */
function shortStack(stack: string): string {
  const [head, ...frames] = stack.split('\n');
  const own = frames.find((f) => /^\s+at /.test(f) && !f.includes('node_modules') && !f.includes('node:')) ?? frames[0];
  if (own === undefined) return head;
  return `${head}\n    ${own.trim().replace(/(\(|at )(\/[^:)]+)/, (_m, lead: string, file: string) => `${lead}${path.relative(process.cwd(), file)}`)}`;
}

function shortenStacks<T extends { stack?: string; cause?: unknown }>(serialized: T): T {
  if (typeof serialized.stack === 'string') serialized.stack = shortStack(serialized.stack);
  const cause = serialized.cause as { stack?: string } | undefined;
  if (cause && typeof cause.stack === 'string') cause.stack = shortStack(cause.stack);
  return serialized;
}
