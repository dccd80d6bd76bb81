import { Client } from 'pg';
import { useDemoApp } from '../support/demo-fixture';
import { releaseApproval } from '../../src/runs/run-state';
import { RunClient } from './run-helpers';

/**
 * releaseApproval locks the run's row and updates it in one statement: the status it
 * reports as previous and the counter it decrements must be the row's latest version, also
 * when another transaction held the row and changed it meanwhile (as a separate
 * SELECT … FOR NO KEY UPDATE followed by the UPDATE read them). This server runs no worker.
 */
let runs: RunClient;
const demo = useDemoApp({ ANTHROPIC_MODEL: 'claude-offline-1' }, { offlineModel: true });
beforeAll(() => {
  runs = new RunClient(demo.app, demo.seed);
});

/** An internal run waiting for `pending` approvals (its row set as the gateway leaves it). */
async function waitingRun(pending: number): Promise<{ id: string; orgId: string }> {
  const { id } = await runs.start('Please send an invoice for $120.50 to customer 1');
  await demo.app.em().execute(`update agent_runs set status = 'waiting_approval', pending_approval_count = ? where id = ?`, [pending, id]);
  return { id, orgId: demo.seed.orgId };
}

const row = async (id: string) =>
  (
    await demo.app
      .em()
      .execute<{ status: string; pending_approval_count: number }[]>('select status, pending_approval_count from agent_runs where id = ?', [id])
  )[0];

const release = (run: { id: string; orgId: string }) => demo.app.em().transactional((tx) => releaseApproval(tx, run, null, null));

test('the last pending approval resumes the run: running, no approval pending, run.resumed', async () => {
  const run = await waitingRun(1);
  expect((await release(run)).map((e) => e.type)).toEqual(['run.resumed']);
  expect(await row(run.id)).toEqual({ status: 'running', pending_approval_count: 0 });
});

test('one of two pending approvals: the run keeps waiting', async () => {
  const run = await waitingRun(2);
  expect(await release(run)).toEqual([]);
  expect(await row(run.id)).toEqual({ status: 'waiting_approval', pending_approval_count: 1 });
});

describe('while another transaction holds the row, the release reads what it committed', () => {
  /** Runs `change` in a transaction holding the run's row, starts the release, commits once the release waits for the row. */
  async function releaseBehind(run: { id: string; orgId: string }, change: string) {
    const holder = new Client({ connectionString: demo.app.db.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(change, [run.id]);
      const released = release(run);
      released.catch(() => undefined); // awaited below
      // The release waits for the holder's row lock (a row lock's wait, by this database's backends). Bounded: never reached ends the test.
      const until = Date.now() + 15_000;
      for (;;) {
        const { rows } = await holder.query<{ n: string }>(
          `select count(*) as n from pg_locks where not granted and locktype in ('transactionid', 'tuple')
              and pid in (select pid from pg_stat_activity where datname = current_database())`,
        );
        if (Number(rows[0].n) > 0) break;
        if (Date.now() > until) throw new Error('the release never waited for the row');
      }
      await holder.query('commit');
      return await released;
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
  }

  test('a second approval opened meanwhile: one fewer pending, still waiting, no run.resumed', async () => {
    const run = await waitingRun(1);
    const events = await releaseBehind(run, 'update agent_runs set pending_approval_count = pending_approval_count + 1 where id = $1');
    expect(events).toEqual([]);
    expect(await row(run.id)).toEqual({ status: 'waiting_approval', pending_approval_count: 1 });
  });

  test('a running run made to wait meanwhile: the release resumes it (the status before it is the committed one)', async () => {
    const run = await waitingRun(0);
    await demo.app.em().execute(`update agent_runs set status = 'running' where id = ?`, [run.id]);
    const events = await releaseBehind(
      run,
      `update agent_runs set status = 'waiting_approval', pending_approval_count = pending_approval_count + 1 where id = $1`,
    );
    expect(events.map((e) => e.type)).toEqual(['run.resumed']);
    expect(await row(run.id)).toEqual({ status: 'running', pending_approval_count: 0 });
  });

  test('cancelled meanwhile: stays cancelled, no run.resumed', async () => {
    const run = await waitingRun(1);
    const events = await releaseBehind(run, `update agent_runs set status = 'cancelled', pending_approval_count = 0 where id = $1`);
    expect(events).toEqual([]);
    expect(await row(run.id)).toEqual({ status: 'cancelled', pending_approval_count: 0 });
  });
});
