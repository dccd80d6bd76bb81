import pino, { type Logger } from 'pino';
import type { Config } from './config';

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

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'toolgate' },
      redact: { paths: REDACTED_LOG_PATHS, censor: '[REDACTED]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
