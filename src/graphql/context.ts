import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import type { Logger } from '../support/logger';
import type { SqlRunner } from '../db/raw-transaction';

/**
 * The long-lived services a resolver reaches, and only those: each feature declares the
 * ones it uses next to their use, by declaration merging
 * (`declare module '../graphql/context' { interface RequestServices { … } }`). The app
 * passes its services (src/app/services.ts), and the compiler checks they satisfy them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: features add their members by declaration merging
export interface RequestServices {}

/**
 * Per-request batch loaders: each feature declares its own next to their factory (for
 * example src/runs/run.loaders.ts), and src/app/loaders.ts assembles them, checked by the
 * compiler against every declaration.
 */
// biome-ignore lint/suspicious/noEmptyInterface: features add their members by declaration merging
export interface RequestLoaders {}

/** What every resolver gets: a request-scoped EntityManager fork and the caller. */
export interface RequestContext {
  em: EntityManager;
  /** Hand-written statements on the ORM's pool, without the ORM (src/db/raw-transaction.ts): for the hot reads. */
  sql: SqlRunner;
  /** Null when no key was sent; resolvers reach it only through `requireCaller`. */
  caller: Caller | null;
  loaders: RequestLoaders;
  correlationId: string;
  logger: Logger;
  services: RequestServices;
}
