import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
import type { Logger } from '../support/logger';
import { MasterKeyring } from './keyring';

/**
 * The keys that protect stored secrets. Production must configure them; elsewhere a
 * version-1 key is generated once into the data folder so a local setup keeps working
 * across restarts.
 */
export async function resolveKeyring(config: Config, logger: Logger): Promise<MasterKeyring> {
  if (config.masterKeys.length > 0) return new MasterKeyring(config.masterKeys);
  const file = path.join(config.dataDir, 'master.key');
  try {
    const key = Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'hex');
    if (key.length === 32) {
      // Warned once, when it was generated; a development start using it is routine.
      logger.info({ file }, 'MASTER_ENCRYPTION_KEY is not set; using the development key from the data folder');
      return new MasterKeyring([{ version: 1, key }]);
    }
  } catch {
    // not there yet
  }
  const key = randomBytes(32);
  await fs.mkdir(config.dataDir, { recursive: true, mode: 0o755 });
  await fs.writeFile(file, key.toString('hex'), { mode: 0o600 });
  logger.warn({ file }, 'MASTER_ENCRYPTION_KEY is not set; generated a development key into the data folder');
  return new MasterKeyring([{ version: 1, key }]);
}
