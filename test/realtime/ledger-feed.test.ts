import { createLoaders } from '../../src/app/loaders';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, type TestOrg } from '../support/factories';
import { LazyRequestContext } from '../../src/api/request-context';
import { ledgerStream } from '../../src/realtime/ledger-stream';
import { bounded, commitRunEvents, ledgerHead } from './realtime-helpers';

/**
 * A ledger subscription's source is a real stream: iterated on its own (no websocket group
 * takes it), it replays from its resume position, then follows the live ledger, and
 * releases its listener when ended.
 */
let app: TestApp;
let org: TestOrg;

beforeAll(async () => {
  app = await startTestApp();
  org = await newOrg(app.em(), 'Feed Org');
});
afterAll(async () => app?.close());

test('a ledger feed iterated on its own replays, then follows the ledger, then lets go of it', async () => {
  const run = await newRun(app.em(), org, { status: 'running' });
  const from = await ledgerHead(app, org.org.id);
  const replayed = await commitRunEvents(app, org.org.id, run.id, 2, (i) => ({ i }));
  const { caller } = await app.services.keys.authenticate(org.keys.expert);
  const ctx = new LazyRequestContext(app.orm, app.services.logger, app.services, createLoaders, caller, 'feed-test');
  const feed = ledgerStream(ctx, BigInt(from), async () => (event) => (event.runId === run.id ? String(event.sequence) : null));
  const iterator = feed[Symbol.asyncIterator]();
  const next = async () => (await bounded(iterator.next(), 'the next event')).value;

  expect([await next(), await next()]).toEqual(replayed);
  const live = next();
  await bounded(
    (async () => {
      while (app.services.realtime.ledger.listenerCount(org.org.id) < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
    'the feed to follow the ledger',
  );
  const [followed] = await commitRunEvents(app, org.org.id, run.id, 1, () => ({ live: true }));
  expect(await live).toBe(followed);

  await iterator.return?.();
  expect(app.services.realtime.ledger.listenerCount(org.org.id)).toBe(0);
});
