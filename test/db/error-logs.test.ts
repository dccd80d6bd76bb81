import { Writable } from 'node:stream';
import { startTestApp, type TestApp } from '../support/app';
import { createLogger } from '../../src/support/logger';

/**
 * A database error carries values: the SQL with its parameters (the ORM quotes it in the
 * message), PostgreSQL's message (`invalid input syntax for type uuid: "…"`) and its detail
 * (`Key (k)=(…) already exists`). Logged, it keeps the SQLSTATE and the names only.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

async function loggedLine(error: unknown, nodeEnv: 'development' | 'production'): Promise<string> {
  let line = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      line += String(chunk);
      done();
    },
  });
  createLogger({ logLevel: 'info', nodeEnv }, sink).error({ err: error }, 'query failed');
  return line;
}

async function failure(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the statement to fail');
}

test.each(['development', 'production'] as const)('%s: no parameter value reaches the log line, the SQLSTATE does', async (nodeEnv) => {
  const secret = 'sekret-4f2a9c';
  const badUuid = await failure(() => app.em().getConnection().execute('select ?::uuid', [secret]));
  const duplicate = await failure(() =>
    app.em().transactional(async (tx) => {
      await tx.execute('create temp table secrets (k text primary key) on commit drop');
      await tx.execute('insert into secrets values (?)', [secret]);
      await tx.execute('insert into secrets values (?)', [secret]);
    }),
  );
  for (const [error, sqlState, names] of [
    [badUuid, '22P02', ''],
    [duplicate, '23505', 'constraint secrets_pkey'],
  ] as const) {
    expect(String((error as Error).message)).toContain(secret); // the raw error has it
    const line = await loggedLine(error, nodeEnv);
    expect(line).not.toContain(secret);
    const logged = JSON.parse(line).err as { message: string; sqlState: string };
    expect(logged.sqlState).toBe(sqlState);
    expect(logged.message).toContain(`SQLSTATE ${sqlState}`);
    expect(logged.message).toContain(names);
  }
});
