import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULTS, runChaos, type ChaosReport } from '../../chaos/harness';
import { killAll } from '../../chaos/lib/processes';

/**
 * The crash harness (`npm run chaos`, docs/reliability.md) in a small configuration, through
 * the same code: real `toolgate start` nodes (dist/, built by `npm test`), a `toolgate
 * sandboxes` process and a database per scenario. One kill point — after_vendor_response
 * with 3 invoice runs and an order lookup, node-a restarted under its name — and the
 * two-node takeover with 2 invoice runs (node-a SIGKILLed while QuickBooks writes are held,
 * node-b finishes). Every invariant of the full run is asserted; runs must be terminal within
 * 30 s of the last restart (the full run allows 60 s), which bounds a failing run to ≈ 2 min.
 * Then the uncertain outcomes with 4 invoice runs each and a 2 s vendor timeout: vendor_timeout
 * (creates answered after 3 s) and vendor_5xx (a 502, a 504, a reset after the create, a 503 on
 * the email), the customer repeating every request afterwards.
 */
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-chaos-test-'));
let report: ChaosReport;
let uncertain: ChaosReport;
const lines: string[] = [];

beforeAll(async () => {
  report = await runChaos(
    {
      ...DEFAULTS,
      scenarios: ['after_vendor_response', 'two_nodes'],
      runs: 3,
      batch: 3,
      twoNodeRuns: 2,
      lookups: 1,
      terminalWithinMs: 30_000,
      seed: 20261201,
      logDir,
      logLevel: 'warn',
      keepFailed: false,
    },
    (line) => lines.push(line),
  );
  uncertain = await runChaos(
    {
      ...DEFAULTS,
      scenarios: ['vendor_timeout', 'vendor_5xx'],
      runs: 4,
      batch: 4,
      vendorTimeoutMs: 2000,
      terminalWithinMs: 30_000,
      seed: 20261204,
      logDir,
      logLevel: 'warn',
      keepFailed: false,
    },
    (line) => lines.push(line),
  );
}, 420_000);

afterAll(async () => {
  await killAll();
  if (report?.ok && uncertain?.ok) fs.rmSync(logDir, { recursive: true, force: true });
});

const scenario = (name: string) => {
  const result = [...report.results, ...uncertain.results].find((r) => r.name === name);
  if (!result) throw new Error(`no result for ${name}: ${JSON.stringify([...report.errors, ...uncertain.errors])}\n${lines.join('\n')}`);
  return result;
};

describe('chaos harness, small configuration', () => {
  test('both scenarios ran to their verification', () => {
    expect({ errors: report.errors, scenarios: report.results.map((r) => r.name) }).toEqual({
      errors: [],
      scenarios: ['after_vendor_response', 'two_nodes'],
    });
  });

  test.each(['after_vendor_response', 'two_nodes'])('%s: every invariant holds (terminal, no duplicate, nothing lost, ledger intact)', (name) => {
    const result = scenario(name);
    // The failures name run and tool call ids; the logs of every process are in result.logDir.
    expect({ scenario: name, failures: result.failures, logs: result.failures.length ? result.logDir : null }).toEqual({
      scenario: name,
      failures: [],
      logs: null,
    });
    expect(result.terminal.ok).toBe(true);
    expect(result.duplicatedEffects).toBe(0);
    expect(result.lost).toBe(0);
    expect(result.toldWrong).toBe(0);
    expect(result.underReview).toBe(0);
    expect(result.ledger.ok).toBe(true);
  });

  test('after_vendor_response: the node died by its failpoint, and what the vendor did was confirmed, not repeated', () => {
    const result = scenario('after_vendor_response');
    expect(result.kills).toBeGreaterThanOrEqual(1);
    expect(result.record.kills[0].how).toMatch(/^failpoint after_vendor_response:\d+$/);
    expect(result.record.kills[0].exit).toBe('SIGKILL');
    // The call whose answer died with the node was reconciled: re-run if idempotent, else confirmed at the
    // vendor. (Another call caught before it reached the vendor is rightly `vendor_not_performed`.)
    expect(result.reconciled.re_executed + result.reconciled.vendor_confirmed).toBeGreaterThanOrEqual(1);
    expect(result.reconciled.vendor_outcome_unknown).toBe(0);
    expect(result.invoices).toBe(result.invoiceCalls.byOutcome.succeeded ?? 0);
  });

  test('two_nodes: node-a was killed at the vendor and not restarted; node-b finished every run', () => {
    const result = scenario('two_nodes');
    expect(result.kills).toBe(1);
    expect(result.record.kills[0]).toMatchObject({ node: 'node-a', exit: 'SIGKILL' });
    expect(result.record.kills[0].heldAtVendor.length).toBeGreaterThanOrEqual(1);
    expect(result.runStatuses).toEqual({ completed: result.runs });
    expect(result.invoiceCalls.total).toBe(2);
    expect(result.invoices).toBe(result.invoiceCalls.byOutcome.succeeded ?? 0);
  });

  test.each(['vendor_timeout', 'vendor_5xx'])('%s: no node died; every call told the truth, and the repeats made nothing new', (name) => {
    const result = scenario(name);
    expect({ scenario: name, failures: result.failures, errors: uncertain.errors, logs: result.failures.length ? result.logDir : null }).toEqual({
      scenario: name,
      failures: [],
      errors: [],
      logs: null,
    });
    expect(result.kills).toBe(0);
    // Four requests, each asked twice, every call succeeded (the vendor acted on each). A repeat
    // of a disturbed call made no invoice of its own: four invoices. (vendor_5xx: a run whose
    // first call met no fault was answered a plain success, and its repeat is a new request,
    // which the verifier allows; duplicatedEffects counts the rest.)
    expect(result.invoiceCalls).toEqual({ total: 8, byOutcome: { succeeded: 8 } });
    if (name === 'vendor_timeout') expect(result.invoices).toBe(4);
    else expect(result.invoices).toBeGreaterThanOrEqual(4);
    expect(result.duplicatedEffects).toBe(0);
    expect(result.lost + result.toldWrong).toBe(0);
    // The first calls that met a fault were settled by asking the vendor (vendor_5xx: a run's resume
    // may meet the email's 503 instead of its own send, so 3 or 4 of them).
    expect(result.reconciled.vendor_confirmed).toBeGreaterThanOrEqual(name === 'vendor_timeout' ? 4 : 3);
    expect(result.effects.every((e) => e.emailsSent <= 1)).toBe(true);
  });
});
