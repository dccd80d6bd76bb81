import type { PolicyOutcome } from './policy-decision-outcome';
import type { PolicyCondition } from './policy-rule.entity';
import { type CompiledRule, conditionHolds, DEFAULT_DECISION, type PolicyInput, readPath, ruleScopeMatches } from './policy-evaluator';
import { containsMarker } from '../redaction/markers';
import type { HistoryAnswers, HistoryCondition } from './policy-history';

/**
 * A recorded call decided again, over its stored (redacted) params. Evaluation is the
 * gateway's (first enabled rule by position that matches), with one more answer: a rule
 * whose condition reads a value redaction hid cannot be decided, and nothing after it may
 * decide either (it might have matched first). Never a guess.
 */
export type ReplayVerdict = { kind: 'decided'; outcome: PolicyOutcome; rule: CompiledRule | null } | { kind: 'undecidable'; rule: CompiledRule };

export function replayPolicy(rules: readonly CompiledRule[], input: PolicyInput, history?: HistoryAnswers): ReplayVerdict {
  for (const rule of rules) {
    if (!ruleScopeMatches(rule, input)) continue;
    const answers = [
      ...rule.conditions.map((c) => conditionAnswer(c, input.params)),
      ...(rule.history ?? []).map((h) => historyAnswer(h, input, history)),
    ];
    if (answers.includes(false)) continue;
    if (answers.includes('unknown')) return { kind: 'undecidable', rule };
    return { kind: 'decided', outcome: rule.decision, rule };
  }
  return { kind: 'decided', outcome: DEFAULT_DECISION[input.defaultRisk], rule: null };
}

/** A condition over stored params: true, false, or unknown when what it reads was redacted or cut. */
function conditionAnswer(condition: PolicyCondition, params: Record<string, unknown>): boolean | 'unknown' {
  if (pathCrossesMarker(params, condition.path)) return 'unknown';
  const found = readPath(params, condition.path);
  // A redacted key is kept (its value replaced), so its presence is still known.
  if (condition.op !== 'exists' && found.exists && holdsMarker(found.value)) return 'unknown';
  return conditionHolds(condition, params);
}

/**
 * A history condition as of the call (answered beforehand over the calls recorded before it):
 * unknown when a param it reads of this call (the customer, the summed amount, the order) was redacted.
 */
function historyAnswer(condition: HistoryCondition, input: PolicyInput, history: HistoryAnswers | undefined): boolean | 'unknown' {
  const counted = input.toolName === condition.tool && (condition.action === null || condition.action === input.action);
  const read = [
    condition.scope === 'customer' ? condition.customerPath : null,
    condition.kind === 'not_after' || (condition.kind === 'sum' && counted) ? condition.paramPath : null,
  ];
  for (const path of read) {
    if (path === null) continue;
    const found = readPath(input.params, path);
    if (pathCrossesMarker(input.params, path) || (found.exists && holdsMarker(found.value))) return 'unknown';
  }
  return history?.get(condition)?.holds ?? false;
}

/** A marker where the path expected an object: whatever lay below it is gone. */
function pathCrossesMarker(root: unknown, path: string): boolean {
  let current: unknown = root;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (typeof current === 'string') return holdsMarker(current);
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return false;
    current = (current as Record<string, unknown>)[part];
  }
  return false;
}

function holdsMarker(value: unknown): boolean {
  if (typeof value === 'string') return containsMarker(value);
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(holdsMarker);
}
