import { toolCallIdOfInvoice, type InvoiceEffect } from './clients';
import type { Cluster } from './cluster';
import { CUSTOMERS_WITH_EMAIL, TERMINAL_RUN, type Driver, type RunView } from './driver';
import { SCENARIO_TITLES, type ScenarioRecord } from './scenarios';

/**
 * The invariants, checked only from what an operator can see: the API (runs, tool calls,
 * the ledger with an admin key), the vendor's own records (the sandbox's effects) and
 * `toolgate ledger verify`. Never from the server's tables or memory.
 */
export const RECONCILIATIONS = ['re_executed', 'vendor_confirmed', 'vendor_not_performed', 'vendor_outcome_unknown', 'input_lost'] as const;
export type Reconciliation = (typeof RECONCILIATIONS)[number];

export interface ScenarioResult {
  name: string;
  title: string;
  runs: number;
  runStatuses: Record<string, number>;
  kills: number;
  /** Store outages (postgres_crash, redis_loss), and the nodes that exited in them. */
  outages: number;
  nodeExits: number;
  terminal: { ok: boolean; afterMs: number | null; notTerminal: string[] };
  invoiceCalls: { total: number; byOutcome: Record<string, number> };
  lookupCalls: { total: number; byOutcome: Record<string, number> };
  invoices: number;
  duplicatedEffects: number;
  lost: number;
  toldWrong: number;
  underReview: number;
  interrupted: number;
  reconciled: Record<Reconciliation, number>;
  ledger: { ok: boolean; eventsChecked: number };
  failures: string[];
  notes: string[];
  record: ScenarioRecord;
  effects: InvoiceEffect[];
  logDir: string;
}

const count = <T>(items: T[], key: (item: T) => string): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
};

/** A call answered as a plain success: nothing uncertain, partial or interrupted on its way. */
const plainSuccess = (call: { status: string; ledgerEvents: { type: string; metadata: Record<string, unknown> }[] }) =>
  call.status === 'succeeded' &&
  call.ledgerEvents.every((e) => e.type !== 'tool_call.interrupted' && !('uncertain' in e.metadata) && !('partial' in e.metadata));

const outcomeOf = (call: { status: string; errorCode: string | null }) =>
  call.status === 'succeeded' ? 'succeeded' : `${call.status}${call.errorCode ? ` ${call.errorCode}` : ''}`;

export async function verifyScenario(cluster: Cluster, driver: Driver, record: ScenarioRecord, terminalWithinMs: number): Promise<ScenarioResult> {
  const node = driver.liveNode();
  const failures: string[] = [];
  const fail = (line: string) => failures.push(line);

  // Runs and their calls, as the API tells them.
  const statuses = await driver.runStatuses(node);
  const runs: RunView[] = [];
  for (const id of statuses.keys()) runs.push(await driver.run(node, id));
  const calls = runs.flatMap((run) => run.toolCalls.map((call) => ({ ...call, runId: run.id, run })));
  const invoiceCalls = calls.filter((c) => c.toolName === 'invoice' && c.action === 'send');
  const lookupCalls = calls.filter((c) => !(c.toolName === 'invoice' && c.action === 'send'));
  const tracked = new Map(driver.runs.map((r) => [r.id, r]));

  // 1. Every run terminal within the limit.
  const notTerminal = runs.filter((r) => !TERMINAL_RUN.has(r.status)).map((r) => `${r.id} (${r.status})`);
  const terminalOk = notTerminal.length === 0 && record.terminalAfterMs !== null && record.terminalAfterMs <= terminalWithinMs;
  if (!terminalOk) fail(`runs not terminal within ${terminalWithinMs / 1000} s of the last restart: ${notTerminal.join(', ') || '(late)'}`);

  // 2. No call left in flight or waiting.
  for (const call of calls) {
    if (['running', 'approved', 'waiting_approval'].includes(call.status))
      fail(`tool call ${call.id} (${call.toolName}.${call.action}, run ${call.runId}) left ${call.status}`);
  }

  // 3. The vendor's effects per idempotency key.
  const effects = await cluster.control.effects();
  const byCall = new Map<string, InvoiceEffect[]>();
  let duplicated = 0;
  let lost = 0;
  const callsById = new Map(invoiceCalls.map((c) => [c.id, c]));
  for (const effect of effects) {
    const id = toolCallIdOfInvoice(effect);
    if (!id || !callsById.has(id)) {
      lost += 1;
      fail(`invoice ${effect.invoiceId} (${effect.privateNote}) belongs to no invoice.send call`);
      continue;
    }
    byCall.set(id, [...(byCall.get(id) ?? []), effect]);
    if (effect.emailsSent > 1) {
      duplicated += effect.emailsSent - 1;
      fail(`invoice ${effect.invoiceId} of call ${id} was emailed ${effect.emailsSent} times`);
    }
  }
  for (const [id, mine] of byCall) {
    if (mine.length > 1) {
      duplicated += mine.length - 1;
      fail(`call ${id} has ${mine.length} invoices: ${mine.map((e) => e.invoiceId).join(', ')}`);
    }
  }
  // Each run asks for one invoice; a customer who repeats it after a disturbed call (uncertain,
  // partial, interrupted, failed) asks for the same one, so the repeat must make none. After a
  // call answered as a plain success, an identical request is a new one (call identity: two
  // identical requests are two invoices), so the verifier counts only repeats of disturbed calls.
  const callsWithInvoices = new Map<string, string[]>();
  for (const [id, mine] of byCall) {
    const runId = callsById.get(id)!.runId;
    callsWithInvoices.set(runId, [...(callsWithInvoices.get(runId) ?? []), ...mine.map((e) => e.invoiceId)]);
  }
  for (const [runId, invoices] of callsWithInvoices) {
    // (A call's own duplicates are counted above; these are the run's other calls' invoices.)
    const ordered = invoiceCalls.filter((c) => c.runId === runId);
    let extra = 0;
    let earlier = false;
    for (const [i, call] of ordered.entries()) {
      if (!byCall.has(call.id)) continue;
      if (earlier && !plainSuccess(ordered[i - 1])) extra += 1;
      earlier = true;
    }
    if (extra > 0) {
      duplicated += extra;
      fail(`run ${runId} asked for one invoice; the vendor holds ${invoices.length}: ${invoices.join(', ')}`);
    }
  }

  // 4. Nothing acknowledged lost, nothing done but denied; the customer told the truth.
  let underReview = 0;
  let toldWrong = 0;
  for (const call of invoiceCalls) {
    const run = tracked.get(call.runId);
    // A repeat of an earlier request finds that request's invoice: its own is the one its result names.
    const mine = byCall.get(call.id) ?? (call.output?.repeated ? effects.filter((e) => e.invoiceId === call.output?.invoiceId) : []);
    const unknown = call.status === 'failed' && call.errorCode === 'VENDOR_OUTCOME_UNKNOWN';
    // Created, its email left undone and said so (for review): reported as what it is.
    const partial = call.status === 'succeeded' && call.output?.partial === 'created_not_emailed' && call.reviewRequired;
    if (unknown || partial) underReview += 1;
    // The reply of the turn this call was made in (the customer's repeat makes a second turn).
    const turn = call.run.toolCalls.filter((c) => c.toolName === 'invoice' && c.action === 'send').findIndex((c) => c.id === call.id);
    const reply = run?.replies[turn] ?? call.run.reply ?? '';
    if (call.status === 'succeeded') {
      if (mine.length === 0) {
        lost += 1;
        fail(`call ${call.id} (run ${call.runId}) succeeded but the vendor has no invoice for it`);
      } else if (run?.customerId) {
        // (More than one email is counted as a duplicated effect above.)
        const emails = mine[0].emailsSent;
        const expected = CUSTOMERS_WITH_EMAIL.has(run.customerId) ? 1 : 0;
        if (emails === 0 && expected === 1 && !partial) {
          lost += 1;
          fail(`call ${call.id} succeeded; its invoice ${mine[0].invoiceId} was never emailed, though customer ${run.customerId} has an address`);
        } else if (expected === 0 && emails > 0) {
          fail(`call ${call.id} succeeded; its invoice ${mine[0].invoiceId} was emailed, though customer ${run.customerId} has no address`);
        }
      }
      if (call.run.status === 'completed' && mine[0] && !reply.includes(`Invoice ${mine[0].docNumber} `)) {
        toldWrong += 1;
        fail(`run ${call.runId}: call ${call.id} made invoice ${mine[0].docNumber}, but the reply says: ${JSON.stringify(reply)}`);
      }
      if (partial && !/could not be emailed/.test(reply)) {
        toldWrong += 1;
        fail(`run ${call.runId}: call ${call.id}'s invoice was not emailed, but the reply says: ${JSON.stringify(reply)}`);
      }
    } else if (mine.length > 0 && !(unknown && call.reviewRequired)) {
      lost += 1;
      fail(
        `call ${call.id} (run ${call.runId}) ended ${outcomeOf(call)} but the vendor made invoice ${mine.map((e) => `${e.invoiceId} (emails ${e.emailsSent})`).join(', ')}`,
      );
    }
    if (call.status === 'failed' && call.run.status === 'completed' && !/unable/i.test(reply)) {
      toldWrong += 1;
      fail(`run ${call.runId}: call ${call.id} failed (${call.errorCode}), but the reply says: ${JSON.stringify(reply)}`);
    }
  }

  // 5. The ledger: interruptions, how they were reconciled, one outcome per call.
  const interruptedEvents = await driver.ledgerEvents(node, 'tool_call.interrupted');
  const settled = [...(await driver.ledgerEvents(node, 'tool_call.succeeded')), ...(await driver.ledgerEvents(node, 'tool_call.failed'))];
  const reconciled = Object.fromEntries(RECONCILIATIONS.map((r) => [r, 0])) as Record<Reconciliation, number>;
  const outcomesPerCall = count(settled, (e) => e.resourceId ?? '');
  for (const [id, n] of Object.entries(outcomesPerCall)) if (n > 1) fail(`call ${id} has ${n} outcome events (tool_call.succeeded/failed)`);
  const settledById = new Map(settled.map((e) => [e.resourceId, e]));
  for (const event of settled) {
    const how = event.metadata.reconciled;
    if (typeof how === 'string') reconciled[how as Reconciliation] = (reconciled[how as Reconciliation] ?? 0) + 1;
  }
  const interrupted = new Set(interruptedEvents.map((e) => e.resourceId ?? ''));
  for (const id of interrupted) {
    const outcome = settledById.get(id);
    if (outcome && typeof outcome.metadata.reconciled !== 'string')
      fail(`call ${id} was interrupted but settled without reconciliation (${outcome.type})`);
  }

  // 6. VENDOR_OUTCOME_UNKNOWN only where the vendor could not tell, and only for the calls the kill interrupted.
  const unknownCalls = calls.filter((c) => c.errorCode === 'VENDOR_OUTCOME_UNKNOWN');
  if (!record.expectUnknown) {
    for (const call of unknownCalls) fail(`call ${call.id} ended VENDOR_OUTCOME_UNKNOWN in a scenario whose vendor could answer`);
  } else {
    for (const call of unknownCalls) {
      if (!call.reviewRequired) fail(`call ${call.id} ended VENDOR_OUTCOME_UNKNOWN without reviewRequired`);
      if (!interrupted.has(call.id)) fail(`call ${call.id} ended VENDOR_OUTCOME_UNKNOWN without being interrupted`);
    }
    const held = new Set(record.kills.flatMap((k) => k.heldAtVendor));
    for (const id of held) {
      const call = callsById.get(id);
      if (call && call.errorCode !== 'VENDOR_OUTCOME_UNKNOWN')
        fail(`call ${id} was held at the vendor at a kill, lookups failed, yet it ended ${outcomeOf(call)}`);
    }
    if (held.size === 0) fail('no invoice write was held at the vendor at any kill: the scenario proved nothing');
  }
  for (const call of calls) {
    const partial = call.status === 'succeeded' && call.output?.partial === 'created_not_emailed';
    if (call.reviewRequired && call.errorCode !== 'VENDOR_OUTCOME_UNKNOWN' && !partial)
      fail(`call ${call.id} is marked for review but ended ${outcomeOf(call)}`);
  }

  // 7. The audit chain.
  const verification = await cluster.ledgerVerify();
  if (!verification.ok) fail(`toolgate ledger verify: exit ${verification.exitCode}, ${JSON.stringify(verification.orgs)}`);
  if (record.expectKills && record.kills.length === 0 && record.outages.length === 0) fail('no node was killed');
  // 8. Store outages: no node exits, each answers throughout, every batch ends within the limit of the store's return.
  for (const node of cluster.nodes.values()) {
    if (record.outages.length > 0 && !node.child.alive())
      fail(`${node.name}#${node.incarnation} exited during a store scenario (${node.child.child.exitCode ?? node.child.child.signalCode})`);
  }
  for (const [i, outage] of record.outages.entries()) {
    for (const exit of outage.exits) fail(`outage ${i + 1} (${outage.store}): node ${exit} exited (restarted by the harness)`);
    for (const problem of outage.unanswered) fail(`outage ${i + 1} (${outage.store}): not answered as documented: ${problem}`);
    if (outage.terminalAfterMs === null)
      fail(`outage ${i + 1} (${outage.store}): runs of its batch not terminal within ${terminalWithinMs / 1000} s of the store's return`);
  }

  return {
    name: record.name,
    title: SCENARIO_TITLES[record.name],
    runs: runs.length,
    runStatuses: count(runs, (r) => (r.errorCode ? `${r.status} ${r.errorCode}` : r.status)),
    kills: record.kills.length,
    outages: record.outages.length,
    nodeExits: record.outages.reduce((sum, o) => sum + o.exits.length, 0),
    terminal: { ok: terminalOk, afterMs: record.terminalAfterMs, notTerminal },
    invoiceCalls: { total: invoiceCalls.length, byOutcome: count(invoiceCalls, outcomeOf) },
    lookupCalls: { total: lookupCalls.length, byOutcome: count(lookupCalls, outcomeOf) },
    invoices: effects.length,
    duplicatedEffects: duplicated,
    lost,
    toldWrong,
    underReview,
    interrupted: interruptedEvents.length,
    reconciled,
    ledger: { ok: verification.ok, eventsChecked: verification.orgs.reduce((sum, o) => sum + (o.eventsChecked ?? 0), 0) },
    failures,
    notes: [...record.notes, ...driver.lostRequests.map((r) => `answer lost with the node: ${r}`)],
    record,
    effects,
    logDir: cluster.logDir,
  };
}
