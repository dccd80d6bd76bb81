import { TOOL_CALL_TRANSITIONS } from '../../src/gateway/tool-call-state';
import { RUN_TRANSITIONS } from '../../src/runs/run-state';
import { APPROVAL_TRANSITIONS } from '../../src/approvals/approval-state';
import { TOOL_CALL_STATUSES } from '../../src/gateway/tool-call.entity';
import { RUN_STATUSES } from '../../src/runs/agent-run.entity';
import { APPROVAL_STATUSES } from '../../src/approvals/approval-request.entity';

/**
 * The three machines as their owners declare them (docs/architecture.md draws the same):
 * every status can be reached from where a row is born, and a final status has no way out.
 */
type Table = Record<string, { from: readonly string[]; to: string }>;

function reachable(table: Table, initial: string[]): string[] {
  const seen = new Set(initial);
  for (let grew = true; grew; ) {
    grew = false;
    for (const { from, to } of Object.values(table)) {
      if (!seen.has(to) && from.some((status) => seen.has(status))) {
        seen.add(to);
        grew = true;
      }
    }
  }
  return [...seen].sort();
}

const exits = (table: Table, status: string) =>
  Object.entries(table)
    .filter(([, t]) => t.from.includes(status) && t.to !== status)
    .map(([name]) => name);

test.each([
  ['ToolCall', TOOL_CALL_TRANSITIONS, TOOL_CALL_STATUSES, ['blocked', 'waiting_approval', 'running'], ['blocked', 'succeeded', 'failed']],
  ['AgentRun', RUN_TRANSITIONS, RUN_STATUSES, ['queued', 'running'], ['cancelled']],
  ['ApprovalRequest', APPROVAL_TRANSITIONS, APPROVAL_STATUSES, ['pending'], ['approved', 'rejected', 'expired', 'cancelled']],
] as [string, Table, readonly string[], string[], string[]][])(
  '%s: every status reachable, final ones without exits',
  (_name, table, statuses, initial, final) => {
    expect(reachable(table, initial)).toEqual([...statuses].sort());
    for (const status of final) expect(exits(table, status)).toEqual([]);
  },
);
