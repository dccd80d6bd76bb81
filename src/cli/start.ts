// `toolgate start`: serve until SIGTERM/SIGINT, then drain within SHUTDOWN_TIMEOUT_MS.
import net from 'node:net';
import { type Config, describeSettings } from '../config';
import type { Logger } from '../support/logger';
import { startToolgate } from '../app/main';
import { describeStart } from './commands';
import { guardUnhandledRejections } from '../app/rejection-guard';

/** Fails fast (EADDRINUSE, reported as PORT_IN_USE) before the database is even started. */
async function ensurePortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(port, host, () => resolve());
  });
  await new Promise((resolve) => probe.close(resolve));
}

export async function start(config: Config, logger: Logger): Promise<number> {
  await ensurePortFree(config.host, config.port);
  logger.info({ settings: describeSettings(config) }, 'starting Toolgate');
  guardUnhandledRejections(logger);
  const toolgate = await startToolgate(config, logger);
  logger.info({ url: toolgate.server.url }, 'Toolgate is listening');
  process.stdout.write(describeStart(toolgate));
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
