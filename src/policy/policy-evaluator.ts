import type { RiskLevel } from '../catalog/risk';
import type { PolicyOutcome } from './policy-decision-outcome';
import type { PolicyCondition } from './policy-rule.entity';
import { globMatches } from './glob';
import { canonicalJson } from '../ledger/canonical-json';
import type { HistoryAnswers, HistoryCondition } from './policy-history';
import type { ApprovalRouting } from './approval-routing';
import type { CedarVerdict } from './cedar-engine';

/** The rule data the evaluator needs; loaded once per org config version, kept in memory. */
export interface CompiledRule {
  id: string;
  name: string;
  position: number;
  toolPattern: string;
  actionPattern: string;
  conditions: PolicyCondition[];
  /** Conditions over earlier calls (policy-history.ts); absent or empty: none. */
  history?: readonly HistoryCondition[];
  roles: string[];
  specialistId: string | null;
  risk: RiskLevel;
  decision: PolicyOutcome;
  /** An approval rule's quorum and ladder; absent: one approver, APPROVAL_TTL. */
  routing?: ApprovalRouting;
}

export interface PolicyInput {
  toolName: string;
  action: string;
  params: Record<string, unknown>;
  callerRole: string;
  specialistId: string;
  defaultRisk: RiskLevel;
}

export interface PolicyVerdict {
  /** What is enforced (in shadow mode always `allow`). */
  outcome: PolicyOutcome;
  /** In shadow mode: what the rules decided. */
  shadowOutcome: PolicyOutcome | null;
  risk: RiskLevel;
  matchedRuleId: string | null;
  reason: string;
  /** The matched rule's approval routing (quorum, ladder); absent: one approver, APPROVAL_TTL. */
  routing?: ApprovalRouting;
}

/** With no matching rule, the catalog's default risk decides. */
export const DEFAULT_DECISION: Record<RiskLevel, PolicyOutcome> = {
  low: 'allow',
  medium: 'observe',
  high: 'require_expert_approval',
};

/**
 * The first enabled rule (by position) whose every clause matches decides. Pure: history
 * conditions are answered beforehand (`historyCandidates`, then readHistory). A history
 * condition left unanswered does not hold (a reviewer's edit is re-checked without history).
 * With Cedar policies (cedar-engine.ts, asked beforehand): a Cedar forbid first, then the
 * rules, then the Cedar permit, then the catalog's default.
 */
export function evaluatePolicy(
  rules: readonly CompiledRule[],
  input: PolicyInput,
  shadowMode: boolean,
  history?: HistoryAnswers,
  cedar?: CedarVerdict | null,
): PolicyVerdict {
  let explained = '';
  const rule = cedar?.forbid
    ? undefined
    : rules.find((r) => {
        if (!ruleMatches(r, input)) return false;
        const explanation = historyExplanation(r, history);
        if (explanation === null) return false;
        explained = explanation;
        return true;
      });
  const byCedar = cedar?.forbid ?? (rule ? null : (cedar?.permit ?? null));
  const decided: Omit<PolicyVerdict, 'shadowOutcome'> = byCedar
    ? { outcome: byCedar.outcome, risk: byCedar.risk, matchedRuleId: null, reason: byCedar.reason }
    : rule
      ? {
          outcome: rule.decision,
          risk: rule.risk,
          matchedRuleId: rule.id,
          reason: `rule "${rule.name}" (position ${rule.position})${explained}`,
          ...(rule.routing ? { routing: rule.routing } : {}),
        }
      : {
          outcome: DEFAULT_DECISION[input.defaultRisk],
          risk: input.defaultRisk,
          matchedRuleId: null,
          reason: `no rule matched; catalog default risk ${input.defaultRisk}`,
        };
  if (!shadowMode) return { ...decided, shadowOutcome: null };
  return { ...decided, outcome: 'allow', shadowOutcome: decided.outcome, reason: `shadow mode: ${decided.reason}` };
}

/**
 * The history conditions a decision needs answered: those of every rule that matches but for
 * its history, up to the first rule that matches without any (nothing after it can decide).
 * Empty (no query at all) when no such rule has history conditions.
 */
export function historyCandidates(rules: readonly CompiledRule[], input: PolicyInput): HistoryCondition[] {
  const wanted: HistoryCondition[] = [];
  for (const rule of rules) {
    if (!ruleMatches(rule, input)) continue;
    if (!rule.history?.length) break;
    wanted.push(...rule.history);
  }
  return wanted;
}

/** Null: a history condition does not hold (or is unanswered); else what the rule's history says ('' without any). */
function historyExplanation(rule: CompiledRule, history: HistoryAnswers | undefined): string | null {
  if (!rule.history?.length) return '';
  const texts: string[] = [];
  for (const condition of rule.history) {
    const answer = history?.get(condition);
    if (!answer?.holds) return null;
    texts.push(answer.explanation);
  }
  return `: ${texts.join('; ')}`;
}

function ruleMatches(rule: CompiledRule, input: PolicyInput): boolean {
  return ruleScopeMatches(rule, input) && rule.conditions.every((c) => conditionHolds(c, input.params));
}

/** Every clause of a rule but its conditions: tool and action globs, caller role, specialist. */
export function ruleScopeMatches(rule: CompiledRule, input: Omit<PolicyInput, 'params' | 'defaultRisk'>): boolean {
  return (
    globMatches(rule.toolPattern, input.toolName) &&
    globMatches(rule.actionPattern, input.action) &&
    (rule.roles.length === 0 || rule.roles.includes(input.callerRole)) &&
    (rule.specialistId === null || rule.specialistId === input.specialistId)
  );
}

export function conditionHolds(condition: PolicyCondition, params: Record<string, unknown>): boolean {
  const found = readPath(params, condition.path);
  switch (condition.op) {
    case 'exists':
      return found.exists === (condition.value === undefined || condition.value === null ? true : Boolean(condition.value));
    case 'equals':
      return found.exists && deepEqual(found.value, condition.value);
    case 'in':
      return found.exists && Array.isArray(condition.value) && condition.value.some((v) => deepEqual(v, found.value));
    case 'lt':
    case 'gt': {
      const actual = toNumber(found.value);
      const bound = toNumber(condition.value);
      if (!found.exists || actual === null || bound === null) return false;
      return condition.op === 'lt' ? actual < bound : actual > bound;
    }
  }
}

/** `a.b[0].c` over params; `exists` distinguishes a missing key from a null value. */
export function readPath(root: unknown, path: string): { exists: boolean; value: unknown } {
  let current: unknown = root;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) {
      return { exists: false, value: undefined };
    }
    current = (current as Record<string, unknown>)[part];
  }
  return { exists: true, value: current };
}

export const CONDITION_PATH = /^[A-Za-z_$][\w$-]*(\.[A-Za-z_$][\w$-]*|\[\d+\])*$/;

function toNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
