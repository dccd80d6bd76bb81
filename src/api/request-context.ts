import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import type { Logger } from '../support/logger';
import type { RequestContext, RequestLoaders, RequestServices } from '../graphql/context';
import { rawStatements, type SqlRunner } from '../db/raw-transaction';

/** Makes one request's loaders (the app's: src/app/loaders.ts). */
export type LoadersFactory = (em: EntityManager, sql: SqlRunner, orgId: string | null) => RequestLoaders;

/**
 * A request's context, its EntityManager fork, loaders and child logger made on first use:
 * a subscription holds its context for hours and mostly never touches them (about 30 KB
 * each when made), and most mutations need none of them. The lazy parts are accessors on
 * the prototype, not the object: Apollo Server copies the context per operation with
 * Object.assign, which would run getters of the object itself (a fork, loaders and a logger
 * per request).
 */
export class LazyRequestContext implements RequestContext {
  private forked: EntityManager | undefined;
  private statements: SqlRunner | undefined;
  private madeLoaders: RequestLoaders | undefined;
  private child: Logger | undefined;

  constructor(
    private readonly orm: MikroORM,
    private readonly rootLogger: Logger,
    readonly services: RequestServices,
    private readonly createLoaders: LoadersFactory,
    readonly caller: Caller | null,
    readonly correlationId: string,
  ) {}

  get em(): EntityManager {
    this.forked ??= this.orm.em.fork();
    return this.forked;
  }

  get sql(): SqlRunner {
    this.statements ??= rawStatements(this.orm);
    return this.statements;
  }

  get loaders(): RequestLoaders {
    this.madeLoaders ??= this.createLoaders(this.em, this.sql, this.caller?.orgId ?? null);
    return this.madeLoaders;
  }

  get logger(): Logger {
    this.child ??= this.rootLogger.child({ correlationId: this.correlationId });
    return this.child;
  }
}
