import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { newOrg, newRun } from '../support/factories';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { createWebhookEndpoint } from '../../src/webhooks/webhook.service';
import { appendLedgerEvent } from '../../src/ledger/ledger.service';
import { RunClient } from '../runs/run-helpers';

/**
 * Webhook delivery has a worker pool of its own, one job per org at a time (issue 29,
 * item 3): while 20 orgs' receivers tarpit (accept the connection, never answer, until
 * WEBHOOK_TIMEOUT_MS = 10 s), an approval resume — approve → the run's step runs from the
 * job queue → the run completes — is not held behind them.
 *
 * LOCAL_STEP_CONCURRENCY=0 sends every step through the job queue (as on a node at its local
 * bound, or a resume committed on a node without a worker): the path the tarpits could block.
 */
const TARPIT_ORGS = 20;
const DELIVERIES_PER_ORG = 2;
const TARPIT_TIMEOUT_MS = 10_000;
/** Well under the tarpit timeout: a resume takes a few hundred ms on this machine. */
const RESUME_BOUND_MS = 4000;

/** A receiver that accepts each connection and never answers; `connected(n)` resolves once n arrived. */
class Tarpit {
  readonly sockets = new Set<net.Socket>();
  private waiters: { n: number; resolve: () => void }[] = [];
  private connections = 0;
  private readonly server = net.createServer((socket) => {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    this.connections += 1;
    for (const waiter of this.waiters.filter((w) => this.connections >= w.n)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  connected(n: number): Promise<void> {
    if (this.connections >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let db: TestDatabase;
let app: TestApp;
let seed: SeedResult;
let runs: RunClient;
const tarpit = new Tarpit();

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startTestApp(
    { ANTHROPIC_MODEL: 'claude-offline-1', LOCAL_STEP_CONCURRENCY: '0', WEBHOOK_TIMEOUT_MS: String(TARPIT_TIMEOUT_MS) },
    { sandboxes: true, offlineModel: true, worker: true, database: db },
  );
  seed = await seedDemo(app.em(), app.masterKey);
  runs = new RunClient(app, seed);
});
afterAll(async () => {
  await tarpit.close(); // the attempts in flight end at once, so the worker stops without waiting them out
  await app?.close();
  await db?.drop();
});

test(`an approval resume is not delayed by ${TARPIT_ORGS} orgs' tarpit receivers`, async () => {
  const url = await tarpit.listen();
  const waiting = await runs.start('Please send an invoice for $120.50 to customer 1');
  const paused = await runs.waitFor(waiting.id, ['waiting_approval']);
  await runs.jobsDone(paused.id);
  const approvalId = paused.toolCalls[0].approvalRequest!.id;

  // 20 orgs, each with an endpoint on the tarpit and deliveries due now.
  for (let i = 0; i < TARPIT_ORGS; i++) {
    const org = await newOrg(app.em(), `Tarpit ${i}`);
    const admin = { orgId: org.org.id, role: 'admin' as const, keyId: null };
    await createWebhookEndpoint(app.em().fork(), app.services.keyring, app.services.egress, admin, { url, eventTypes: ['run.completed'] });
    for (let d = 0; d < DELIVERIES_PER_ORG; d++) {
      const run = await newRun(app.em(), org);
      await app.em().transactional((tx) => appendLedgerEvent(tx, { orgId: org.org.id, type: 'run.completed', runId: run.id, resourceId: run.id }));
    }
  }
  // The receivers now hold attempts open (as many as the pool running them takes at once).
  await tarpit.connected(2);

  const started = performance.now();
  const resolved = await runs.resolve(approvalId, 'APPROVE');
  expect(resolved.body.errors).toBeUndefined();
  const done = await runs.waitFor(paused.id, ['completed', 'failed'], TARPIT_TIMEOUT_MS - 1000);
  const resumeMs = performance.now() - started;
  console.log(
    `approval resume with ${TARPIT_ORGS} tarpit orgs (${TARPIT_ORGS * DELIVERIES_PER_ORG} deliveries, ${tarpit.sockets.size} attempts held open): ${resumeMs.toFixed(0)} ms`,
  );
  expect(done.status).toBe('completed');
  expect(resumeMs).toBeLessThan(RESUME_BOUND_MS);
  // One attempt per org at a time: never more open at once than orgs.
  expect(tarpit.sockets.size).toBeLessThanOrEqual(TARPIT_ORGS);
});
