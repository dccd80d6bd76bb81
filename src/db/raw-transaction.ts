import { EventType } from '@mikro-orm/core';
import type { AnyEntity, EntityData, Logger, QueryResult } from '@mikro-orm/core';
import type { EntityManager, Knex, MikroORM } from '@mikro-orm/postgresql';

/** What a function that only sends SQL in a transaction needs: an EntityManager's or a RawTransaction. */
export type SqlTransaction = Pick<EntityManager, 'execute' | 'isInTransaction' | 'getTransactionContext'>;

interface PgConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<void>;
}

/**
 * A transaction on a connection of the ORM's own pool, sent through `pg` directly: the
 * gateway's hot path, whose few statements are all hand-written SQL, skips the query
 * formatting, knex runner and transaction object the ORM spends per statement (about a
 * third of a call's CPU, npm run bench:profile). It answers `execute` like an
 * EntityManager (`?` placeholders, rows back), so the state owners and the ledger take
 * either. Errors are the ORM's (the driver converts them: unique violations, outages),
 * and a commit fires the ORM's afterTransactionCommit event, so ledger notices go out as
 * for any other transaction.
 */
export class RawTransaction implements SqlTransaction {
  constructor(
    private readonly connection: PgConnection,
    private readonly convert: (error: Error) => Error,
    /** The ORM's query log when it is on (tests, debugging): statements are logged as for the ORM's own. */
    private readonly log: Logger | null,
  ) {}

  isInTransaction(): boolean {
    return true;
  }

  /** What ledger appends note their notices on (see events/ledger-notifier). */
  getTransactionContext<T>(): T {
    return this as unknown as T;
  }

  /** As EntityManager.execute with a SQL string (its signature, so either can be passed). */
  async execute<T extends QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[] = EntityData<AnyEntity>[]>(
    sql: string | Knex.QueryBuilder | Knex.Raw,
    params: unknown[] = [],
  ): Promise<T> {
    if (typeof sql !== 'string') throw new Error('RawTransaction.execute takes SQL text');
    const started = this.log ? performance.now() : 0;
    const text = positional(sql);
    try {
      const result = await this.connection.query(text, params);
      this.log?.logQuery({ query: text, took: Math.round(performance.now() - started), results: result.rows.length, level: 'info' });
      return result.rows as T;
    } catch (error) {
      this.log?.logQuery({ query: text, level: 'error' });
      throw this.convert(error as Error);
    }
  }

  /** BEGIN, COMMIT, ROLLBACK. */
  async control(statement: 'begin' | 'commit' | 'rollback'): Promise<void> {
    await this.execute(statement);
  }
}

export async function rawTransaction<T>(orm: MikroORM, work: (tx: RawTransaction) => Promise<T>): Promise<T> {
  const client = orm.em.getConnection().getKnex().client as unknown as KnexClient;
  const events = orm.em.getEventManager();
  const driver = orm.em.getDriver();
  const convert = (error: Error) => driver.convertException(error);
  let connection: PgConnection;
  try {
    connection = await client.acquireConnection();
  } catch (error) {
    throw convert(error as Error);
  }
  const logger = orm.config.getLogger();
  const tx = new RawTransaction(connection, convert, logger.isEnabled('query') ? logger : null);
  try {
    await tx.control('begin');
    const result = await work(tx);
    await tx.control('commit');
    await events.dispatchEvent(EventType.afterTransactionCommit, { em: orm.em, transaction: tx });
    return result;
  } catch (error) {
    await tx.control('rollback').catch(() => undefined);
    await events.dispatchEvent(EventType.afterTransactionRollback, { em: orm.em, transaction: tx });
    throw error;
  } finally {
    await client.releaseConnection(connection);
  }
}

/** `?` placeholders (the ORM's) → `$1, $2, …` (pg's); our SQL never has a `?` inside a literal. */
const converted = new Map<string, string>();

function positional(sql: string): string {
  let text = converted.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    // Statement texts are constants or built from a handful of shapes; the bound is a guard.
    if (converted.size < 1000) converted.set(sql, text);
  }
  return text;
}
