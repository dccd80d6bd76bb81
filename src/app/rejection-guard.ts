import type { Logger } from '../support/logger';
import { describeUnavailable, isDatabaseUnavailable } from '../db/unavailable';

/**
 * A serving node outlives a promise rejection nobody handled (a library's background
 * write during an outage, say): Node's default would end the process, and with it every
 * request and run step it holds. It is logged instead — at warn when the database or
 * another store was unreachable, else at error, as the bug it is. Returns the uninstaller.
 */
export function guardUnhandledRejections(logger: Logger): () => void {
  const log = logger.child({ component: 'process' });
  const onRejection = (reason: unknown) => {
    if (isDatabaseUnavailable(reason)) {
      log.warn({ cause: describeUnavailable(reason) }, 'unhandled rejection during an outage; the node keeps running');
    } else {
      log.error({ err: reason }, 'unhandled rejection; the node keeps running');
    }
  };
  process.on('unhandledRejection', onRejection);
  return () => process.off('unhandledRejection', onRejection);
}
