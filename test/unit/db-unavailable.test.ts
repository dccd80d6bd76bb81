import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { Client, DatabaseError, Pool } from 'pg';
import { GraphQLError, locatedError } from 'graphql';
import { ConnectionException, DriverException } from '@mikro-orm/core';
import { MikroORM } from '@mikro-orm/postgresql';
import { isDatabaseUnavailable, describeUnavailable } from '../../src/db/unavailable';
import { createErrorFormatter } from '../../src/graphql/format-error';
import { AppError } from '../../src/errors/app-error';
import { adminUrl } from '../support/database';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * The classifier against errors the real drivers raise: node-postgres, knex's pool and
 * MikroORM, provoked against a closed port, a proxy that is cut, a server that never
 * answers, a backend terminated by the server, a role over its connection limit and an
 * exhausted pool. Only SQLSTATEs that cannot be provoked on a healthy server (57P02, 57P03,
 * class 08) are built, with the driver's own DatabaseError class.
 */

/** The rejection of `promise` (fails the test when it resolves). */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function urlWith(changes: { port?: number; user?: string; password?: string }): string {
  const url = new URL(adminUrl());
  url.hostname = '127.0.0.1';
  if (changes.port !== undefined) url.port = String(changes.port);
  if (changes.user !== undefined) url.username = changes.user;
  if (changes.password !== undefined) url.password = changes.password;
  return url.toString();
}

function targetOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 5432) };
}

/** A MikroORM without entities, as the app's pool would be (connections made on demand). */
function ormFor(clientUrl: string, pool: Record<string, number> = {}): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 2, ...pool },
    connect: false,
    // knex warns on the console about disposed connections; nothing to see in a test.
    debug: false,
    logger: () => undefined,
  });
}

function sqlState(code: string, message: string): DatabaseError {
  const error = new DatabaseError(message, message.length, 'error');
  error.code = code;
  error.severity = 'FATAL';
  return error;
}

const proxy = new TcpProxy();
let proxiedUrl: string;

beforeAll(async () => {
  const { host, port } = targetOf(adminUrl());
  proxiedUrl = urlWith({ port: await proxy.start(host, port) });
});
afterAll(async () => proxy.stop());
afterEach(() => proxy.resume());

describe('errors the drivers raise when the database is unreachable', () => {
  test('connection refused (node-postgres, MikroORM DriverException, raw knex)', async () => {
    const url = urlWith({ port: await closedPort() });
    const pgError = await rejectionOf(new Client({ connectionString: url }).connect());
    expect((pgError as { code?: string }).code).toBe('ECONNREFUSED');
    expect(isDatabaseUnavailable(pgError)).toBe(true);

    const orm = await ormFor(url);
    try {
      const viaEm = await rejectionOf(orm.em.fork().execute('select 1'));
      expect(viaEm).toBeInstanceOf(DriverException);
      expect(isDatabaseUnavailable(viaEm)).toBe(true);
      const viaConnection = await rejectionOf(orm.em.fork().getConnection().execute('select 1'));
      expect(isDatabaseUnavailable(viaConnection)).toBe(true);
      const viaTransaction = await rejectionOf(orm.em.fork().transactional((em) => em.execute('select 1')));
      expect(isDatabaseUnavailable(viaTransaction)).toBe(true);
      expect(describeUnavailable(viaEm)).toEqual({ code: 'ECONNREFUSED', message: expect.stringContaining('ECONNREFUSED') });
    } finally {
      await orm.close(true);
    }
  });

  test('connection reset by a cut proxy', async () => {
    proxy.pause();
    const pgError = await rejectionOf(new Client({ connectionString: proxiedUrl }).connect());
    expect((pgError as { code?: string }).code).toBe('ECONNRESET');
    expect(isDatabaseUnavailable(pgError)).toBe(true);

    const orm = await ormFor(proxiedUrl);
    try {
      const viaEm = await rejectionOf(orm.em.fork().execute('select 1'));
      expect(isDatabaseUnavailable(viaEm)).toBe(true);
    } finally {
      await orm.close(true);
    }
  });

  test.each([
    ['end', 'Connection terminated unexpectedly'],
    ['reset', 'read ECONNRESET'],
  ] as const)('the proxy cut under a running query (%s): "%s"', async (how, message) => {
    const client = new Client({ connectionString: proxiedUrl });
    client.on('error', () => undefined);
    await client.connect();
    const running = rejectionOf(client.query('select pg_sleep(30)'));
    proxy.pause(how);
    const error = await running;
    expect((error as Error).message).toBe(message);
    expect(isDatabaseUnavailable(error)).toBe(true);
    // The client is now unusable: its next query fails as unavailable too.
    const after = await rejectionOf(client.query('select 1'));
    expect((after as Error).message).toBe('Client has encountered a connection error and is not queryable');
    expect(isDatabaseUnavailable(after)).toBe(true);
    await client.end().catch(() => undefined);
  });

  test('"Connection terminated": a client ended under a running query', async () => {
    const client = new Client({ connectionString: adminUrl() });
    await client.connect();
    const running = rejectionOf(client.query('select pg_sleep(30)'));
    await client.end();
    const error = await running;
    expect((error as Error).message).toBe('Connection terminated');
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  test('connect timeouts against a server that never answers (node-postgres Client and Pool)', async () => {
    const accepted: net.Socket[] = [];
    const silent = net.createServer((socket) => accepted.push(socket.on('error', () => undefined)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const pool = new Pool({ connectionString: urlWith({ port }), connectionTimeoutMillis: 100 });
    try {
      const viaClient = await rejectionOf(new Client({ connectionString: urlWith({ port }), connectionTimeoutMillis: 100 }).connect());
      expect((viaClient as Error).message).toBe('timeout expired');
      expect(isDatabaseUnavailable(viaClient)).toBe(true);
      const viaPool = await rejectionOf(pool.query('select 1'));
      expect((viaPool as Error).message).toBe('Connection terminated due to connection timeout');
      expect(isDatabaseUnavailable(viaPool)).toBe(true);
    } finally {
      await pool.end();
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('57P01 admin_shutdown: the backend terminated by the server (MikroORM DriverException)', async () => {
    const orm = await ormFor(adminUrl());
    try {
      const error = await rejectionOf(
        orm.em.fork().transactional(async (em) => {
          const [{ pid }] = await em.execute<{ pid: number }[]>('select pg_backend_pid() as pid');
          await orm.em.fork().execute('select pg_terminate_backend(?)', [pid]);
          await em.execute('select 1');
        }),
      );
      // The server's FATAL 57P01 usually arrives before the socket closes; when the close
      // wins the race, the driver reports the terminated connection instead. Both are outages.
      const code = (error as { code?: string }).code;
      if (code === '57P01') expect(describeUnavailable(error).code).toBe('57P01');
      else expect((error as Error).message).toMatch(/Connection terminated|not queryable/);
      expect(isDatabaseUnavailable(error)).toBe(true);
      // The pool recovers by itself.
      await expect(orm.em.fork().execute('select 1 as one')).resolves.toEqual([{ one: 1 }]);
    } finally {
      await orm.close(true);
    }
  });

  test('53300 too_many_connections: a role over its connection limit', async () => {
    const role = `toolgate_unavail_${randomBytes(4).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    const admin = new Client({ connectionString: adminUrl() });
    await admin.connect();
    try {
      await admin.query(`create role ${role} login connection limit 0 password '${password}'`);
      const error = await rejectionOf(new Client({ connectionString: urlWith({ user: role, password }) }).connect());
      expect((error as { code?: string }).code).toBe('53300');
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await admin.query(`drop role if exists ${role}`);
      await admin.end();
    }
  });

  test("knex's Timeout acquiring a connection: the pool exhausted", async () => {
    const orm = await ormFor(adminUrl(), { max: 1, acquireTimeoutMillis: 100 });
    try {
      let error: unknown;
      await orm.em.fork().transactional(async () => {
        // The transaction holds the only connection.
        error = await rejectionOf(orm.em.fork().execute('select 1'));
      });
      expect((error as Error).message).toMatch(/Timeout acquiring a connection/);
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await orm.close(true);
    }
  });
});

describe('SQLSTATEs a healthy server cannot be made to send (the driver class, built)', () => {
  test.each([
    ['57P02', 'terminating connection because of crash of another server process'],
    ['57P03', 'the database system is starting up'],
    ['08006', 'connection failure'],
    ['08001', 'could not connect to server'],
    ['08P01', 'invalid startup packet layout'],
  ])('%s', (code, message) => {
    const error = sqlState(code, message);
    expect(isDatabaseUnavailable(error)).toBe(true);
    // As MikroORM hands it on (the code copied onto its DriverException).
    expect(isDatabaseUnavailable(new DriverException(error))).toBe(true);
  });

  test("MikroORM's ConnectionException", () => {
    expect(isDatabaseUnavailable(new ConnectionException(new Error('whatever the driver said')))).toBe(true);
  });
});

describe('wrappers', () => {
  let refused: unknown;
  beforeAll(async () => {
    refused = await rejectionOf(new Client({ connectionString: urlWith({ port: await closedPort() }) }).connect());
  });

  test('cause chains, GraphQL resolver errors, AggregateError', () => {
    const wrapped = new Error('could not load the org', { cause: new Error('lookup failed', { cause: refused }) });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
    expect(isDatabaseUnavailable(locatedError(refused, undefined, ['viewer']))).toBe(true);
    expect(isDatabaseUnavailable(new GraphQLError('x', { originalError: wrapped as Error }))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([new Error('other'), refused], 'all attempts failed'))).toBe(true);
  });

  test('cycles end the walk', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(isDatabaseUnavailable(a)).toBe(false);
  });
});

describe('errors that are not an outage', () => {
  test('real query errors of a reachable database', async () => {
    const orm = await ormFor(adminUrl());
    try {
      const syntax = await rejectionOf(orm.em.fork().execute('selec 1'));
      expect((syntax as { code?: string }).code).toBe('42601');
      expect(isDatabaseUnavailable(syntax)).toBe(false);
      const missing = await rejectionOf(orm.em.fork().execute('select * from no_such_table_here'));
      expect((missing as { code?: string }).code).toBe('42P01');
      expect(isDatabaseUnavailable(missing)).toBe(false);
      const division = await rejectionOf(orm.em.fork().execute('select 1 / 0'));
      expect(isDatabaseUnavailable(division)).toBe(false);
    } finally {
      await orm.close(true);
    }
  });

  test('application errors and non-errors', () => {
    expect(isDatabaseUnavailable(new AppError('NOT_FOUND', 'Run not found'))).toBe(false);
    expect(isDatabaseUnavailable(new AppError('UNAUTHENTICATED', 'The API key is not valid'))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('request aborted'), { code: 'ECONNABORTED' }))).toBe(false);
    for (const value of [undefined, null, 'ECONNREFUSED', 42, {}]) expect(isDatabaseUnavailable(value)).toBe(false);
  });
});

describe('what a client sees', () => {
  test('SERVICE_UNAVAILABLE with a fixed message: no host, port, SQL or stack', async () => {
    const port = await closedPort();
    const refused = await rejectionOf(new Client({ connectionString: urlWith({ port }) }).connect());
    const error = locatedError(refused, undefined, ['viewer']);
    const format = createErrorFormatter({ includeStack: true });
    const formatted = format(error.toJSON(), error);
    expect(formatted).toEqual({
      message: 'The service is temporarily unavailable; retry later',
      path: ['viewer'],
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    });
    expect(JSON.stringify(formatted)).not.toMatch(new RegExp(`ECONN|127\\.0\\.0\\.1|${port}|stack`));
  });
});
