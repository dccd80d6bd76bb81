import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config';
import type { Logger } from './logger';

/** The long-lived dependencies of a running server, passed explicitly (no container). */
export interface AppServices {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  masterKey: Buffer;
}
