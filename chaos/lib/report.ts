import type { ScenarioResult } from './verify';

/** The summary table (markdown) and the failures under it. */
export function renderTable(results: ScenarioResult[], terminalWithinMs = 60_000): string {
  const header = `| scenario | runs | kills | terminal ≤ ${terminalWithinMs / 1000} s | invoice calls: succeeded / failed (codes) | invoices | duplicated effects | lost | under review | reconciled (re_executed / vendor_confirmed / vendor_not_performed / vendor_outcome_unknown) | ledger |`;
  const rule = '| --- | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | --- | --- |';
  const rows = results.map((r) => {
    const failed = Object.entries(r.invoiceCalls.byOutcome)
      .filter(([outcome]) => outcome !== 'succeeded')
      .map(([outcome, n]) => `${n} ${outcome.replace(/^failed /, '')}`);
    const calls = `${r.invoiceCalls.byOutcome.succeeded ?? 0} / ${failed.length ? failed.join(', ') : '0'}`;
    const terminal = r.terminal.ok
      ? `yes (${((r.terminal.afterMs ?? 0) / 1000).toFixed(1)} s)`
      : `**NO** (${r.terminal.notTerminal.length} not terminal)`;
    const rec = r.reconciled;
    const reconciled = `${rec.re_executed} / ${rec.vendor_confirmed} / ${rec.vendor_not_performed} / ${rec.vendor_outcome_unknown}${rec.input_lost ? ` (+${rec.input_lost} input_lost)` : ''}`;
    const mark = (n: number) => (n === 0 ? '0' : `**${n}**`);
    const ledger = r.ledger.ok ? `ok (${r.ledger.eventsChecked} events)` : '**BROKEN**';
    const kills = r.outages
      ? `${r.kills} (${r.outages} store outages${r.nodeExits ? `, **${r.nodeExits} node exits**` : ', 0 node exits'})`
      : `${r.kills}`;
    return `| ${r.name} | ${r.runs} | ${kills} | ${terminal} | ${calls} | ${r.invoices} | ${mark(r.duplicatedEffects)} | ${mark(r.lost + r.toldWrong)} | ${r.underReview} | ${reconciled} | ${ledger} |`;
  });
  const total = results.reduce(
    (sum, r) => ({
      runs: sum.runs + r.runs,
      kills: sum.kills + r.kills,
      invoices: sum.invoices + r.invoices,
      duplicated: sum.duplicated + r.duplicatedEffects,
      lost: sum.lost + r.lost + r.toldWrong,
      review: sum.review + r.underReview,
    }),
    { runs: 0, kills: 0, invoices: 0, duplicated: 0, lost: 0, review: 0 },
  );
  const allTerminal = results.every((r) => r.terminal.ok);
  const succeeded = results.reduce((sum, r) => sum + (r.invoiceCalls.byOutcome.succeeded ?? 0), 0);
  const calls = results.reduce((sum, r) => sum + r.invoiceCalls.total, 0);
  const rec = (key: keyof ScenarioResult['reconciled']) => results.reduce((sum, r) => sum + r.reconciled[key], 0);
  rows.push(
    `| **total** | ${total.runs} | ${total.kills} | ${allTerminal ? 'yes' : '**NO**'} | ${succeeded} / ${calls - succeeded} | ${total.invoices} | ${total.duplicated} | ${total.lost} | ${total.review} | ${rec('re_executed')} / ${rec('vendor_confirmed')} / ${rec('vendor_not_performed')} / ${rec('vendor_outcome_unknown')} | ${results.every((r) => r.ledger.ok) ? 'ok' : '**BROKEN**'} |`,
  );
  return [header, rule, ...rows].join('\n');
}

export function renderFailures(results: ScenarioResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    for (const failure of r.failures) lines.push(`- ${r.name}: ${failure}`);
  }
  return lines.length ? `Failures:\n${lines.join('\n')}` : 'Every invariant held.';
}

export function renderNotes(results: ScenarioResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    const kills = r.record.kills.map(
      (k) =>
        `${k.node}#${k.incarnation} ${k.how} at ${(k.atMs / 1000).toFixed(1)} s${k.heldAtVendor.length ? ` (${k.heldAtVendor.length} invoice write(s)${k.lookupsHeld ? ` and ${k.lookupsHeld} lookup(s)` : ''} held)` : ''}`,
    );
    lines.push(
      `- ${r.name}: runs ${JSON.stringify(r.runStatuses)}; lookups ${JSON.stringify(r.lookupCalls.byOutcome)}; interrupted ${r.interrupted}; kills: ${kills.join('; ') || 'none'}`,
    );
    for (const o of r.record.outages) {
      lines.push(
        `  - ${o.store} down at ${(o.atMs / 1000).toFixed(1)} s for ${(o.durationMs / 1000).toFixed(1)} s: ${o.answered} probes answered as documented, ${o.unanswered.length} not; ${o.exits.length ? `nodes exited: ${o.exits.join(', ')}; ` : ''}its batch terminal ${o.terminalAfterMs === null ? 'NOT within the limit' : `${(o.terminalAfterMs / 1000).toFixed(1)} s after the store was back`}`,
      );
    }
    for (const note of r.notes) lines.push(`  - ${note}`);
  }
  return lines.join('\n');
}
