import { Client } from 'pg';
import { useDemoApp } from '../support/demo-fixture';
import { newOrg } from '../support/factories';
import {
  COMPLETE_RUN,
  DELETE_POLICY_RULE,
  EXECUTE_APPROVED_TOOL_CALL,
  RESOLVE_APPROVAL,
  START_AGENT_RUN,
  UPSERT_POLICY_RULE,
} from '../support/documents';
import { type GatewayClient, errorCode, recordStatements, touching, transactionsIn } from './gateway-helpers';

/**
 * Runs as the gateway sees them (open, frozen, completed), who may call executeToolCall,
 * idempotency by toolUseId, and the cost of the hot path in transactions.
 */
const demo = useDemoApp({}, { sandboxes: true });

describe('run lifecycle', () => {
  test('startAgentRun opens a running run with its manifest and policy version frozen', async () => {
    const run = await demo.gw.startRun();
    const { policyVersion } = await demo.gw.org();
    expect(run).toMatchObject({ status: 'running', policyVersion });
    expect(run.allowedTools).toContain('order_lookup.lookup');
    const created = await demo.gw.run(run.id);
    expect(created.ledgerEvents.map((e) => e.type)).toEqual(['run.created', 'run.started']);
    expect(created.ledgerEvents[0].metadata).toMatchObject({ allowedTools: run.allowedTools, policyVersion });

    // A policy change later does not touch the run's recorded version or manifest.
    const rule = await demo.gw.ok(UPSERT_POLICY_RULE, {
      input: { name: 'inert', position: 1, toolPattern: 'nothing_matches', risk: 'low', decision: 'allow', enabled: false },
    });
    try {
      const later = await demo.gw.run(run.id);
      expect(later.policyVersion).toBe(policyVersion);
      expect(later.allowedTools).toEqual(run.allowedTools);
      expect((await demo.gw.startRun()).policyVersion).toBe(policyVersion + 1);
    } finally {
      await demo.gw.ok(DELETE_POLICY_RULE, { id: rule.upsertPolicyRule.id });
    }
  });

  test('completeAgentRun completes the run (run.completed); later tool calls are RUN_NOT_ACTIVE and write nothing', async () => {
    const run = await demo.gw.startRun();
    expect((await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' })).status).toBe('succeeded');
    const done = await demo.gw.ok(COMPLETE_RUN, { id: run.id }, demo.seed.keys.agent);
    expect(done.completeAgentRun).toMatchObject({ id: run.id, status: 'completed', completedAt: expect.any(String) });
    const completed = await demo.gw.run(run.id);
    expect(completed.status).toBe('completed');
    expect(completed.ledgerEvents.map((e) => e.type)).toEqual([
      'run.created',
      'run.started',
      'tool_call.requested',
      'tool_call.succeeded',
      'run.completed',
    ]);

    const callsBefore = await demo.gw.count('tool_calls');
    const eventsBefore = await demo.gw.count('ledger_events');
    const res = await demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_after_end' });
    expect(errorCode(res)).toBe('RUN_NOT_ACTIVE');
    expect(res.body.data).toBeNull();
    expect(await demo.gw.count('tool_calls')).toBe(callsBefore);
    expect(await demo.gw.count('ledger_events')).toBe(eventsBefore);
    // Completing twice is refused too.
    expect(errorCode(await demo.app.gql(COMPLETE_RUN, { key: demo.seed.keys.agent, variables: { id: run.id } }))).toBe('RUN_NOT_ACTIVE');
  });

  test('completeAgentRun with a pending approval is APPROVALS_PENDING and the run stays open', async () => {
    const run = await demo.gw.startRun();
    const waiting = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 50 });
    expect(waiting).toMatchObject({ status: 'waiting_approval', approvalRequestId: expect.any(String) });
    expect(await demo.gw.run(run.id)).toMatchObject({ status: 'waiting_approval', pendingApprovalCount: 1 });

    const res = await demo.app.gql(COMPLETE_RUN, { key: demo.seed.keys.agent, variables: { id: run.id } });
    expect(errorCode(res)).toBe('APPROVALS_PENDING');
    expect(res.body.errors![0].extensions).toMatchObject({ pendingApprovalCount: 1 });
    expect(await demo.gw.run(run.id)).toMatchObject({ status: 'waiting_approval', pendingApprovalCount: 1 });
    // A waiting run still takes other calls.
    expect((await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' })).status).toBe('succeeded');
  });

  test("another org's run is NOT_FOUND, and so is a run id that is not a uuid; nothing is written", async () => {
    const run = await demo.gw.startRun();
    const other = await newOrg(demo.app.em());
    const callsBefore = await demo.gw.count('tool_calls');
    for (const runId of [run.id, 'not-a-uuid']) {
      const res = await demo.gw.executeRaw(runId, 'order_lookup', 'lookup', { orderId: '12345' }, { key: other.keys.agent });
      expect(errorCode(res)).toBe('NOT_FOUND');
    }
    expect(errorCode(await demo.gw.executeRaw('not-a-uuid', 'order_lookup', 'lookup', { orderId: '12345' }))).toBe('NOT_FOUND');
    expect(errorCode(await demo.app.gql(COMPLETE_RUN, { key: other.keys.agent, variables: { id: run.id } }))).toBe('NOT_FOUND');
    const foreignSpecialist = await demo.app.gql(START_AGENT_RUN, {
      key: other.keys.agent,
      variables: { input: { specialistId: demo.seed.specialistId, driver: 'EXTERNAL' } },
    });
    expect(errorCode(foreignSpecialist)).toBe('NOT_FOUND');
    expect(await demo.gw.count('tool_calls')).toBe(callsBefore);
    expect((await demo.gw.run(run.id)).status).toBe('running');
  });

  test.each(['client', 'expert', 'admin', 'partner'] as const)('a %s key may not call executeToolCall (FORBIDDEN)', async (role) => {
    const run = await demo.gw.startRun();
    const callsBefore = await demo.gw.count('tool_calls');
    const res = await demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { key: demo.seed.keys[role] });
    expect(errorCode(res)).toBe('FORBIDDEN');
    expect(await demo.gw.count('tool_calls')).toBe(callsBefore);
  });

  test.each([
    ['a correlationId with a space', { correlationId: 'has space' }],
    ['an empty correlationId', { correlationId: '' }],
    ['a correlationId over 128 characters', { correlationId: 'c'.repeat(129) }],
    ['a toolUseId with a slash', { toolUseId: 'toolu/1' }],
  ])('%s is BAD_USER_INPUT and writes nothing', async (_label, options) => {
    const run = await demo.gw.startRun();
    const callsBefore = await demo.gw.count('tool_calls');
    const res = await demo.gw.executeRaw(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, options);
    expect(errorCode(res)).toBe('BAD_USER_INPUT');
    expect(await demo.gw.count('tool_calls')).toBe(callsBefore);
  });
});

describe('idempotency by toolUseId', () => {
  test('the same toolUseId twice: one vendor call, the second answer is the first call replayed', async () => {
    const run = await demo.gw.startRun();
    const shopifyBefore = demo.gw.vendorRequests('shopify');
    const first = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_seq_1' });
    const second = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_seq_1' });
    expect(first).toMatchObject({ status: 'succeeded', replayed: false });
    expect(second).toMatchObject({ status: 'succeeded', toolCallId: first.toolCallId, error: null, replayed: true });
    expect(demo.gw.vendorRequests('shopify')).toBe(shopifyBefore + 1);
    expect(await demo.gw.count('tool_calls', 'run_id = ?', [run.id])).toBe(1);
    // The replay records nothing new about the call.
    expect((await demo.gw.call(first.toolCallId)).ledgerEvents.map((e) => e.type)).toEqual(['tool_call.requested', 'tool_call.succeeded']);
    // A new toolUseId is a new call.
    const third = await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_seq_2' });
    expect(third).toMatchObject({ status: 'succeeded', replayed: false });
    expect(third.toolCallId).not.toBe(first.toolCallId);
    expect(demo.gw.vendorRequests('shopify')).toBe(shopifyBefore + 2);
  });

  test('a replayed block answers the same code and sentence', async () => {
    const run = await demo.gw.startRun();
    const first = await demo.gw.execute(run.id, 'wire', 'transfer', {}, { toolUseId: 'toolu_block' });
    const second = await demo.gw.execute(run.id, 'wire', 'transfer', {}, { toolUseId: 'toolu_block' });
    expect(second).toEqual({ ...first, replayed: true });
  });

  test('two racing requests with one toolUseId: one call, one vendor request, both answers name it', async () => {
    const run = await demo.gw.startRun();
    const shopifyBefore = demo.gw.vendorRequests('shopify');
    const answers = await Promise.all([
      demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_race' }),
      demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_race' }),
    ]);
    expect(answers[0].toolCallId).toBe(answers[1].toolCallId);
    expect(answers.map((a) => a.replayed).sort()).toEqual([false, true]);
    expect(answers.find((a) => !a.replayed)).toMatchObject({ status: 'succeeded', error: null });
    expect(demo.gw.vendorRequests('shopify')).toBe(shopifyBefore + 1);
    expect(await demo.gw.count('tool_calls', 'run_id = ?', [run.id])).toBe(1);
    expect(await demo.gw.count('policy_decisions', 'run_id = ?', [run.id])).toBe(1);
    const call = await demo.gw.call(answers[0].toolCallId);
    expect(call.status).toBe('succeeded');
    expect(call.ledgerEvents.map((e) => e.type)).toEqual(['tool_call.requested', 'tool_call.succeeded']);
  });

  test("when both pass the replay check before either inserts, the loser answers the winner's call", async () => {
    // Hold back every insert into tool_calls (plain reads still pass) until both requests
    // wait on it: both have then looked for the toolUseId and found nothing.
    const run = await demo.gw.startRun();
    const shopifyBefore = demo.gw.vendorRequests('shopify');
    const holder = new Client({ connectionString: demo.app.db.url });
    await holder.connect();
    let answers: Awaited<ReturnType<GatewayClient['execute']>>[];
    try {
      await holder.query('begin');
      await holder.query('lock table tool_calls in exclusive mode');
      const racing = Promise.all([
        demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_forced' }),
        demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_forced' }),
      ]);
      // One waits to insert; the other, its check done, waits for the org's ledger lock,
      // which the first holds until it commits (the rows travel with the ledger append).
      let waiting = 0;
      while (waiting < 2) {
        const { rows } = await holder.query<{ n: string }>(
          "select count(*) as n from pg_locks where not granted and (relation = 'tool_calls'::regclass or locktype = 'advisory')",
        );
        waiting = Number(rows[0].n);
      }
      await holder.query('commit');
      answers = await racing;
    } finally {
      await holder.end();
    }
    expect(answers[0].toolCallId).toBe(answers[1].toolCallId);
    expect(answers.map((a) => a.replayed).sort()).toEqual([false, true]);
    expect(demo.gw.vendorRequests('shopify')).toBe(shopifyBefore + 1);
    expect(await demo.gw.count('tool_calls', 'run_id = ?', [run.id])).toBe(1);
    // The loser's decision row went with its rolled-back transaction.
    expect(await demo.gw.count('policy_decisions', 'run_id = ?', [run.id])).toBe(1);
    expect((await demo.gw.call(answers[0].toolCallId)).ledgerEvents.map((e) => e.type)).toEqual(['tool_call.requested', 'tool_call.succeeded']);
  });

  test("a loser that gets the org's lock while the winner records its outcome answers the winner's call, without a deadlock", async () => {
    // The interleaving that once deadlocked: the loser passed the replay check before the
    // winner committed, then got the org's ledger lock; the winner's outcome transaction
    // updated the call's row and waited for that lock; the loser's INSERT then waited, in
    // the unique check, for the winner's transaction (PostgreSQL aborted one of them).
    const run = await demo.gw.startRun();
    const shopifyBefore = demo.gw.vendorRequests('shopify');
    const inserts = new Client({ connectionString: demo.app.db.url });
    const decisions = new Client({ connectionString: demo.app.db.url });
    await inserts.connect();
    await decisions.connect();
    // pg_locks is the whole server's: only this database's waiters count (another suite's
    // advisory or table locks, on the shared server of a CI run, would stall or fake a stage).
    const waitingOn = async (sql: string) =>
      Number(
        (
          await inserts.query<{ n: string }>(
            `select count(*) as n from pg_locks where not granted and database = (select oid from pg_database where datname = current_database()) and ${sql}`,
          )
        ).rows[0].n,
      );
    // Polls pg_locks for a stage of the interleaving, for at most 15 s: a stage never reached
    // must end the test (and release the locks in `finally`), never spin past jest's timeout
    // while holding them (the suite's next tests would then wait behind them).
    const reached = async (stage: () => Promise<boolean>): Promise<boolean> => {
      const until = Date.now() + 15_000;
      while (!(await stage())) if (Date.now() > until) return false;
      return true;
    };
    let settled: PromiseSettledResult<Awaited<ReturnType<GatewayClient['execute']>>>[] | undefined;
    try {
      const [{ pid }] = (await decisions.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
      // 1. Both pass the replay check; one waits to insert its rows, the other for the org's lock.
      await inserts.query('begin');
      await inserts.query('lock table tool_calls in exclusive mode');
      const racing = Promise.allSettled([
        demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_deadlock' }),
        demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }, { toolUseId: 'toolu_deadlock' }),
      ]);
      void racing.then((answers) => {
        settled = answers;
      });
      if (!(await reached(async () => (await waitingOn("(relation = 'tool_calls'::regclass or locktype = 'advisory')")) >= 2))) {
        throw new Error('stage 1 not reached: the two requests did not both wait (one for tool_calls, one for the org lock)');
      }
      // 2. Queue a lock that will hold back the second request's INSERT (the decision row goes
      // first) once the first request has committed, while its outcome transaction goes ahead.
      await decisions.query('begin');
      const decisionsLocked = decisions.query('lock table policy_decisions in share mode');
      if (!(await reached(async () => (await waitingOn(`pid = ${pid}`)) >= 1)))
        throw new Error('stage 2 not reached: the policy_decisions lock was not queued');
      await inserts.query('commit');
      await decisionsLocked;
      // 3. Either both answered (the second saw the first's call at the lock), or the deadlock's
      // stage is set: the winner's outcome waits for the org's lock, the loser's INSERT for us.
      const staged = await reached(
        async () =>
          settled !== undefined ||
          ((await waitingOn("locktype = 'advisory'")) === 1 && (await waitingOn(`relation = 'policy_decisions'::regclass and pid <> ${pid}`)) === 1),
      );
      if (!staged) throw new Error('stage 3 not reached: neither both answered nor the deadlock stage set');
      await decisions.query('commit');
      settled = await racing;
    } finally {
      await inserts.end();
      await decisions.end();
    }
    const answers = settled.map((answer) => {
      if (answer.status === 'rejected') throw answer.reason;
      return answer.value;
    });
    expect(answers[0].toolCallId).toBe(answers[1].toolCallId);
    expect(answers.map((a) => a.replayed).sort()).toEqual([false, true]);
    expect(demo.gw.vendorRequests('shopify')).toBe(shopifyBefore + 1);
    const call = await demo.gw.call(answers[0].toolCallId);
    expect(call.status).toBe('succeeded');
    expect(call.ledgerEvents.map((e) => e.type)).toEqual(['tool_call.requested', 'tool_call.succeeded']);
    expect(await demo.gw.count('policy_decisions', 'run_id = ?', [run.id])).toBe(1);
  });

  /*
   * BUG (src/gateway/gateway.service.ts, replay()): a replayed call that waits for approval
   * answers approvalRequestId: null, although ToolCallResult.approvalRequestId is "set
   * when the call waits for approval"; the agent cannot tell what it waits for.
   */
  test('a replayed call waiting for approval names the same approval request', async () => {
    const run = await demo.gw.startRun();
    const first = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 75 }, { toolUseId: 'toolu_wait' });
    const second = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 75 }, { toolUseId: 'toolu_wait' });
    expect(first).toMatchObject({ status: 'waiting_approval', approvalRequestId: expect.any(String), replayed: false });
    expect(await demo.gw.run(run.id)).toMatchObject({ pendingApprovalCount: 1 });
    expect(second).toEqual({ ...first, replayed: true });
  });
});

describe('hot path', () => {
  const call = (runId: string, toolName: string, action: string, params: unknown) =>
    recordStatements(demo.app, () => demo.gw.execute(runId, toolName, action, params));

  test('a succeeded or blocked call sends each statement alone (no BEGIN, no COMMIT), a waiting call one transaction; none reads config again', async () => {
    const run = await demo.gw.startRun();
    await demo.gw.execute(run.id, 'order_lookup', 'lookup', { orderId: '12345' }); // warm caches

    const succeeded = await call(run.id, 'order_lookup', 'lookup', { orderId: '12345' });
    expect(succeeded.value.status).toBe('succeeded');
    expect(transactionsIn(succeeded.statements)).toBe(0);
    expect(succeeded.statements.filter((s) => /^\[query\] (commit|rollback)\b/.test(s))).toEqual([]);
    // The decision: its rows with the ledger append and the check of the run as this node
    // read it for the warming call (run-cache.ts), one statement; the outcome: the call's
    // UPDATE with its append, one statement. Each is its own transaction.
    const gateway = succeeded.statements.filter((s) => /agent_runs r join orgs|toolgate_ledger_append/.test(s));
    expect(gateway).toHaveLength(2);
    expect(gateway[0]).toMatch(
      /^\[query\] with w0 as \(insert into "policy_decisions".*toolgate_call_run_check\(.* toolgate_ledger_append\(guard\.org_id,/,
    );
    expect(gateway[1]).toMatch(/^\[query\] with guard as \(update tool_calls set status = .* toolgate_ledger_append\(guard\.org_id,/);
    // One insert of the call, one update with its outcome: nothing is flushed twice.
    expect(touching(succeeded.statements, 'tool_calls').filter((s) => /\b(insert|update)\b/i.test(s))).toHaveLength(2);

    const blocked = await call(run.id, 'wire', 'transfer', {});
    expect(blocked.value.status).toBe('blocked');
    expect(transactionsIn(blocked.statements)).toBe(0);

    const invalid = await call(run.id, 'order_lookup', 'lookup', {});
    expect(invalid.value.error?.code).toBe('INVALID_TOOL_INPUT');
    expect(transactionsIn(invalid.statements)).toBe(0);

    const waiting = await call(run.id, 'invoice', 'send', { customerId: '1', amount: 5 });
    expect(waiting.value.status).toBe('waiting_approval');
    expect(transactionsIn(waiting.statements)).toBe(1);

    for (const measured of [succeeded, blocked, invalid, waiting]) {
      for (const table of ['policy_rules', 'feature_flags', 'tool_definitions', 'tool_permissions']) {
        expect(touching(measured.statements, table)).toEqual([]);
      }
    }
  });

  test("an approved call's claim reads its decision once, with the run's row it locks (its policy version checks what was approved)", async () => {
    const run = await demo.gw.startRun();
    const waiting = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 6 }, { toolUseId: 'toolu_claim_reads' });
    expect(waiting.status).toBe('waiting_approval');
    await demo.gw.ok(RESOLVE_APPROVAL, { id: waiting.approvalRequestId!, decision: 'APPROVE' }, demo.seed.keys.expert);

    const approved = await recordStatements(demo.app, () => demo.gw.ok(EXECUTE_APPROVED_TOOL_CALL, { id: waiting.toolCallId }, demo.seed.keys.agent));
    expect(approved.value.executeApprovedToolCall.status).toBe('succeeded');
    const decisionReads = approved.statements.filter((s) => /^\[query\] select\b.*\bpolicy_decisions\b/is.test(s));
    expect(decisionReads).toHaveLength(1);
    expect(decisionReads[0]).toMatch(/for no key update of r\b/);
  });
});
