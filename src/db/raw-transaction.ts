import { EventType } from '@mikro-orm/core';
import type { AnyEntity, EntityData, Logger, QueryResult } from '@mikro-orm/core';
import type { EntityManager, Knex, MikroORM } from '@mikro-orm/postgresql';

/*
 * The one adapter to MikroORM's internals, kept on purpose. It uses three things the
 * ORM does not document as API: the knex client under it (getKnex().client's
 * acquireConnection / releaseConnection: connections of the ORM's own pool, used through
 * `pg`), the driver's convertException, and the afterTransactionCommit / Rollback events
 * fired by hand (EventManager.dispatchEvent), which the ledger notifier's subscriber —
 * registered the public way — relies on. The public path (em.transactional + em.execute)
 * costs about four times as much per transaction: three statements took 0.48 ms here
 * against 1.88 ms through the ORM (the quietest of three rounds of 1000, embedded
 * PostgreSQL); on the gateway that was a third of a call's CPU (`npm run bench:profile`).
 * test/db/raw-transaction-internals.test.ts pins @mikro-orm/* 6.6.16 and each of the three,
 * so an upgrade that changes them fails there first.
 */

/** What a function that only sends SQL needs: an EntityManager's `execute`, or ours. */
export type SqlRunner = Pick<EntityManager, 'execute'>;
/** The same inside a transaction (ledger appends check that they are in one). */
export type SqlTransaction = Pick<EntityManager, 'execute' | 'isInTransaction' | 'getTransactionContext'>;

type Rows = QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[];

interface PgConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<void>;
}

/**
 * The ORM's connection pool, used through `pg` directly. The gateway's hot path and the
 * per-request key check are hand-written SQL; sent this way they skip the query
 * formatting, knex runner and transaction object the ORM spends per statement (about a
 * third of a call's CPU, `npm run bench:profile`). Errors are the ORM's (its driver
 * converts them: unique violations, outages); statements appear in the ORM's query log
 * when it is on (tests, debugging).
 */
class Pool {
  private readonly client: KnexClient;
  private readonly log: Logger | null;

  constructor(readonly orm: MikroORM) {
    this.client = orm.em.getConnection().getKnex().client as unknown as KnexClient;
    const logger = orm.config.getLogger();
    this.log = logger.isEnabled('query') ? logger : null;
  }

  async acquire(): Promise<PgConnection> {
    try {
      return await this.client.acquireConnection();
    } catch (error) {
      throw this.convert(error);
    }
  }

  release(connection: PgConnection): Promise<void> {
    return this.client.releaseConnection(connection);
  }

  async query<T>(connection: PgConnection, sql: string | Knex.QueryBuilder | Knex.Raw, params: unknown[]): Promise<T> {
    if (typeof sql !== 'string') throw new Error('raw SQL statements are text');
    const started = this.log ? performance.now() : 0;
    const text = positional(sql);
    try {
      const result = await connection.query(text, params);
      this.log?.logQuery({ query: text, took: Math.round(performance.now() - started), results: result.rows.length, level: 'info' });
      return result.rows as T;
    } catch (error) {
      this.log?.logQuery({ query: text, level: 'error' });
      throw this.convert(error);
    }
  }

  private convert(error: unknown): Error {
    return this.orm.em.getDriver().convertException(error as Error);
  }
}

const pools = new WeakMap<MikroORM, Pool>();

function poolOf(orm: MikroORM): Pool {
  let pool = pools.get(orm);
  if (!pool) pools.set(orm, (pool = new Pool(orm)));
  return pool;
}

/**
 * A transaction on one pooled connection. It answers `execute` like an EntityManager
 * (`?` placeholders, rows back), so the state owners and the ledger take either; its
 * commit fires the ORM's afterTransactionCommit event, so ledger notices go out as for
 * any other transaction.
 *
 * BEGIN is sent with the first `execute`, not before: a transaction whose work reads
 * first (`read`) and writes once at the end (`executeLast`) sends no BEGIN and no COMMIT.
 * Its reads run as statements of their own, as READ COMMITTED runs them inside a
 * transaction anyway (each statement sees what was committed when it started, and these
 * lock nothing), and its one write is a transaction of its own: whole or not at all. Two
 * round trips saved on the gateway's hot path.
 */
export class RawTransaction implements SqlTransaction {
  private begun: Promise<unknown> | null = null;
  /** A lone last statement was sent: the transaction is over. */
  private ended = false;

  constructor(
    private readonly pool: Pool,
    private readonly connection: PgConnection,
    /** Every statement is the last one (rawStatement): the work sends exactly one. */
    private readonly lone = false,
  ) {}

  isInTransaction(): boolean {
    return true;
  }

  /** What ledger appends note their notices on (see events/ledger-notifier). */
  getTransactionContext<T>(): T {
    return this as unknown as T;
  }

  /** A statement inside the transaction (BEGIN goes first if it has not yet). */
  async execute<T extends Rows = EntityData<AnyEntity>[]>(sql: string | Knex.QueryBuilder | Knex.Raw, params: unknown[] = []): Promise<T> {
    if (this.lone) return this.executeLast<T>(sql, params);
    this.assertOpen();
    this.begun ??= this.pool.query(this.connection, 'begin', []);
    await this.begun;
    return this.pool.query<T>(this.connection, sql, params);
  }

  /** A read that needs no transaction around it (it locks nothing): alone until the transaction has begun, inside it after. */
  read<T extends Rows = EntityData<AnyEntity>[]>(sql: string, params: unknown[] = []): Promise<T> {
    this.assertOpen();
    return this.begun ? this.execute<T>(sql, params) : this.pool.query<T>(this.connection, sql, params);
  }

  /**
   * The transaction's last statement: alone, a transaction of its own, when nothing was
   * written before it; inside the transaction otherwise. Nothing may follow it (refused, so
   * a change that adds a statement after it fails loudly instead of committing half).
   */
  executeLast<T extends Rows = EntityData<AnyEntity>[]>(sql: string | Knex.QueryBuilder | Knex.Raw, params: unknown[] = []): Promise<T> {
    this.assertOpen();
    if (this.begun) {
      this.ended = true;
      return this.begun.then(() => this.pool.query<T>(this.connection, sql, params));
    }
    this.ended = true;
    return this.pool.query<T>(this.connection, sql, params);
  }

  /** Whether COMMIT (or ROLLBACK) is due: a statement ran inside BEGIN. */
  get open(): boolean {
    return this.begun !== null;
  }

  private assertOpen(): void {
    if (this.ended) throw new Error('the transaction ended with its last statement; nothing may follow it');
  }
}

/** The transaction's last statement: alone when the transaction allows it (RawTransaction), else a plain one. */
export function executeLast<T extends Rows = EntityData<AnyEntity>[]>(tx: SqlTransaction, sql: string, params: unknown[]): Promise<T> {
  return tx instanceof RawTransaction ? tx.executeLast<T>(sql, params) : tx.execute<T>(sql, params);
}

/** Reads that need no transaction around them: alone while the transaction has not begun (RawTransaction), else plain ones. */
export function readOutside(tx: SqlTransaction): SqlRunner {
  if (!(tx instanceof RawTransaction)) return tx;
  return { execute: (sql: string | Knex.QueryBuilder | Knex.Raw, params?: unknown[]) => tx.read(sql as string, params) } as SqlRunner;
}

async function runTransaction<T>(orm: MikroORM, lone: boolean, work: (tx: RawTransaction) => Promise<T>): Promise<T> {
  const pool = poolOf(orm);
  const events = orm.em.getEventManager();
  const connection = await pool.acquire();
  const tx = new RawTransaction(pool, connection, lone);
  try {
    const result = await work(tx);
    if (tx.open) await pool.query(connection, 'commit', []);
    await events.dispatchEvent(EventType.afterTransactionCommit, { em: orm.em, transaction: tx });
    return result;
  } catch (error) {
    if (tx.open) await pool.query(connection, 'rollback', []).catch(() => undefined);
    await events.dispatchEvent(EventType.afterTransactionRollback, { em: orm.em, transaction: tx });
    throw error;
  } finally {
    await pool.release(connection);
  }
}

export function rawTransaction<T>(orm: MikroORM, work: (tx: RawTransaction) => Promise<T>): Promise<T> {
  return runTransaction(orm, false, work);
}

/**
 * A transaction of exactly one statement, without BEGIN and COMMIT: PostgreSQL runs a lone
 * statement as a transaction of its own. For work known to send one statement; a second is
 * refused.
 */
export function rawStatement<T>(orm: MikroORM, work: (tx: RawTransaction) => Promise<T>): Promise<T> {
  return runTransaction(orm, true, work);
}

/** Single statements outside a transaction, each on a pooled connection for its own duration. */
export function rawStatements(orm: MikroORM): SqlRunner {
  const pool = poolOf(orm);
  return {
    async execute<T extends Rows = EntityData<AnyEntity>[]>(sql: string | Knex.QueryBuilder | Knex.Raw, params: unknown[] = []): Promise<T> {
      const connection = await pool.acquire();
      try {
        return await pool.query<T>(connection, sql, params);
      } finally {
        await pool.release(connection);
      }
    },
  };
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
