import { type EventSubscriber, type TransactionEventArgs, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { version as coreVersion } from '@mikro-orm/core/package.json';
import postgresqlPackage from '@mikro-orm/postgresql/package.json';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { initOrm } from '../../src/db/orm';
import { type RawTransaction, rawStatements, rawTransaction } from '../../src/db/raw-transaction';
import { publishLedgerCommits } from '../../src/realtime/ledger-notifier';
import { noteLedgerAppend } from '../../src/ledger/ledger-appends';
import { ENTITIES } from '../../src/app/entities';
import type { BusChannel, EventBus } from '../../src/realtime/event-bus';
import { createLogger } from '../../src/support/logger';

/**
 * The upgrade test of src/db/raw-transaction.ts, the one module that reaches into
 * MikroORM's internals: it takes connections from the knex client under the ORM
 * (acquireConnection / releaseConnection, sending SQL through `pg` itself), converts
 * errors with the driver's convertException, and fires the ORM's transaction events by
 * hand. It was written against the versions pinned here; an upgrade must fail this test
 * before it can change any of that under it.
 */
const PINNED = '6.6.16';

let db: TestDatabase;
let orm: MikroORM;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await initOrm({ clientUrl: db.url, poolMax: 2, entities: ENTITIES });
  await orm.em.fork().execute('create table raw_adapter_probe (k text primary key)');
});
afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

test('@mikro-orm/core, postgresql and the knex layer under it are the version the adapter was written against', () => {
  expect({ core: coreVersion, postgresql: postgresqlPackage.version, knex: postgresqlPackage.dependencies['@mikro-orm/knex'] }).toEqual({
    core: PINNED,
    postgresql: PINNED,
    knex: PINNED,
  });
});

test("the knex client under the ORM lends its pool's pg connections", async () => {
  const client = orm.em.getConnection().getKnex().client as { acquireConnection?: unknown; releaseConnection?: unknown };
  expect(typeof client.acquireConnection).toBe('function');
  expect(typeof client.releaseConnection).toBe('function');
  // What the adapter sends on them: pg's query(text, values), rows back.
  const acquire = client.acquireConnection as () => Promise<{ query(text: string, values: unknown[]): Promise<{ rows: unknown[] }> }>;
  const connection = await acquire.call(client);
  try {
    expect((await connection.query('select $1::int as n', [7])).rows).toEqual([{ n: 7 }]);
  } finally {
    await (client.releaseConnection as (c: unknown) => Promise<void>).call(client, connection);
  }
  // `?` placeholders, as the ORM's execute takes them.
  expect(await rawStatements(orm).execute('select ?::int as n, ?::text as t', [1, 'x'])).toEqual([{ n: 1, t: 'x' }]);
});

test("the driver's convertException maps a unique violation on the raw path to the ORM's exception", async () => {
  await expect(
    rawTransaction(orm, async (tx) => {
      await tx.execute('insert into raw_adapter_probe (k) values (?)', ['dup']);
      await tx.execute('insert into raw_adapter_probe (k) values (?)', ['dup']);
    }),
  ).rejects.toBeInstanceOf(UniqueConstraintViolationException);
  // Rolled back: the first insert is gone too.
  expect(await rawStatements(orm).execute('select count(*)::int as n from raw_adapter_probe')).toEqual([{ n: 0 }]);
});

test('the commit and rollback events fired by hand reach a subscriber registered the public way, with the raw transaction', async () => {
  const seen: { event: string; transaction: unknown; em: unknown }[] = [];
  const subscriber: EventSubscriber = {
    afterTransactionCommit: (args: TransactionEventArgs) => {
      seen.push({ event: 'commit', transaction: args.transaction, em: args.em });
    },
    afterTransactionRollback: (args: TransactionEventArgs) => {
      seen.push({ event: 'rollback', transaction: args.transaction, em: args.em });
    },
  };
  orm.em.getEventManager().registerSubscriber(subscriber);

  let committed: RawTransaction | null = null;
  await rawTransaction(orm, async (tx) => {
    committed = tx;
  });
  let rolledBack: RawTransaction | null = null;
  await expect(
    rawTransaction(orm, async (tx) => {
      rolledBack = tx;
      throw new Error('abandoned');
    }),
  ).rejects.toThrow('abandoned');

  expect(seen).toEqual([
    { event: 'commit', transaction: committed, em: orm.em },
    { event: 'rollback', transaction: rolledBack, em: orm.em },
  ]);
});

test('the ledger notifier publishes what a raw transaction appended once it commits, and nothing for one rolled back', async () => {
  const published: [BusChannel, string][] = [];
  const bus: EventBus = {
    kind: 'in-process',
    publish: async (channel, message) => {
      published.push([channel, message]);
    },
    subscribe: async () => async () => undefined,
    close: async () => undefined,
  };
  publishLedgerCommits(orm, bus, createLogger({ logLevel: 'silent' }));

  await rawTransaction(orm, async (tx) => {
    noteLedgerAppend(tx, 'org-a', 4n);
    noteLedgerAppend(tx, 'org-a', 5n);
    expect(published).toEqual([]); // never inside the transaction
  });
  await expect(
    rawTransaction(orm, async (tx) => {
      noteLedgerAppend(tx, 'org-b', 9n);
      throw new Error('abandoned');
    }),
  ).rejects.toThrow('abandoned');

  expect(published).toEqual([['ledger', 'org-a:5']]);
});
