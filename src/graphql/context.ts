import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import type { Logger } from '../logger';
import type { Loaders } from './loaders';
import type { AppServices } from '../app-services';

/** What every resolver gets: a request-scoped EntityManager fork and the caller. */
export interface RequestContext {
  em: EntityManager;
  /** Null when no key was sent; resolvers reach it only through `requireCaller`. */
  caller: Caller | null;
  loaders: Loaders;
  correlationId: string;
  logger: Logger;
  services: AppServices;
}
