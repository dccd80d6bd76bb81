import type {
  ConsolePolicyRuleFragment,
  PolicyConditionOp,
  PolicyHistoryKind,
  PolicyHistoryScope,
  PolicyOutcome,
  PolicyRuleInput,
  RiskLevel,
  Role,
} from '../../../gql/graphql';

/**
 * The policy editor's local draft: the whole rule set in evaluation order, as the admin
 * edits it. Form fields stay text until the draft is sent (toInputs); the server checks each
 * rule as it checks a saved one, on the replay and again on the publish.
 */
export interface DraftCondition {
  path: string;
  op: PolicyConditionOp;
  /** JSON (1000, "US", ["a","b"], true); text that is not JSON is sent as a string. */
  value: string;
}

export interface DraftHistory {
  kind: PolicyHistoryKind;
  tool: string;
  action: string;
  scope: PolicyHistoryScope;
  customerPath: string;
  paramPath: string;
  windowSeconds: string;
  limit: string;
}

/** One step of an approval rule's escalation ladder. */
export interface DraftStep {
  afterSeconds: string;
  role: Role;
  /** The group paged at this step (empty: none). */
  group: string;
}

export interface DraftRule {
  /** Stable while the draft lives (a new rule has no id yet). */
  key: string;
  /** The saved rule it replaces; null: a new rule. */
  id: string | null;
  name: string;
  toolPattern: string;
  actionPattern: string;
  roles: Role[];
  specialistId: string | null;
  conditions: DraftCondition[];
  history: DraftHistory[];
  risk: RiskLevel;
  decision: PolicyOutcome;
  /** Approval rules: distinct approvers required (1–5). */
  quorum: string;
  escalation: DraftStep[];
  /** Approval rules with a ladder: when the request expires (empty: the default). */
  expireAfterSeconds: string;
  enabled: boolean;
}

export const OUTCOMES: PolicyOutcome[] = ['allow', 'observe', 'require_expert_approval', 'require_client_approval', 'block'];
export const RISKS: RiskLevel[] = ['low', 'medium', 'high'];
export const RULE_ROLES: Role[] = ['admin', 'expert', 'client', 'partner', 'agent'];
export const CONDITION_OPS: PolicyConditionOp[] = ['equals', 'in', 'lt', 'gt', 'exists'];
export const HISTORY_KINDS: PolicyHistoryKind[] = ['count', 'sum', 'not_after'];
export const HISTORY_SCOPES: PolicyHistoryScope[] = ['run', 'org', 'customer'];

/** Which fields a history condition of each kind reads (docs/policy.md). */
export const HISTORY_KIND_FIELDS: Record<PolicyHistoryKind, { paramPath: boolean; limit: boolean }> = {
  count: { paramPath: false, limit: true },
  sum: { paramPath: true, limit: true },
  not_after: { paramPath: true, limit: false },
};

let nextKey = 0;
const newKey = () => `draft-${++nextKey}`;

export const newRule = (): DraftRule => ({
  key: newKey(),
  id: null,
  name: '',
  toolPattern: '*',
  actionPattern: '*',
  roles: [],
  specialistId: null,
  conditions: [],
  history: [],
  risk: 'medium',
  decision: 'require_expert_approval',
  quorum: '1',
  escalation: [],
  expireAfterSeconds: '',
  enabled: true,
});

export const newStep = (role: Role): DraftStep => ({ afterSeconds: '', role, group: '' });

/** Whether a decision waits for people (the only rules that take a quorum and a ladder). */
export const asksApproval = (decision: PolicyOutcome): boolean => decision === 'require_expert_approval' || decision === 'require_client_approval';

export const newCondition = (): DraftCondition => ({ path: '', op: 'equals', value: '' });

export const newHistory = (): DraftHistory => ({
  kind: 'count',
  tool: '',
  action: '',
  scope: 'run',
  customerPath: '',
  paramPath: '',
  windowSeconds: '',
  limit: '',
});

const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

export function fromSaved(rule: ConsolePolicyRuleFragment): DraftRule {
  return {
    key: newKey(),
    id: rule.id,
    name: rule.name,
    toolPattern: rule.toolPattern,
    actionPattern: rule.actionPattern,
    roles: [...rule.roles],
    specialistId: rule.specialistId,
    conditions: rule.conditions.map((c) => ({
      path: c.path,
      op: c.op,
      value: c.value === undefined || c.value === null ? '' : JSON.stringify(c.value),
    })),
    history: rule.history.map((h) => ({
      kind: h.kind,
      tool: h.tool,
      action: text(h.action),
      scope: h.scope,
      customerPath: text(h.customerPath),
      paramPath: text(h.paramPath),
      windowSeconds: text(h.windowSeconds),
      limit: text(h.limit),
    })),
    risk: rule.risk,
    decision: rule.decision,
    quorum: String(rule.quorum),
    escalation: rule.escalation.map((step) => ({ afterSeconds: String(step.afterSeconds), role: step.role, group: text(step.group) })),
    expireAfterSeconds: text(rule.expireAfterSeconds),
    enabled: rule.enabled,
  };
}

function jsonValue(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

const orNull = (raw: string): string | null => (raw.trim() === '' ? null : raw.trim());
const numberOrNull = (raw: string): number | null => (raw.trim() === '' ? null : Number(raw));

/**
 * The draft as the API takes it: positions 10, 20, … in the draft's order (distinct, so the
 * gateway evaluates it in the order the replay did). Replay and publish send the same list.
 */
export function toInputs(draft: readonly DraftRule[]): PolicyRuleInput[] {
  return draft.map((rule, i) => ({
    id: rule.id,
    name: rule.name,
    position: (i + 1) * 10,
    toolPattern: rule.toolPattern,
    actionPattern: rule.actionPattern,
    roles: rule.roles,
    specialistId: rule.specialistId,
    conditions: rule.conditions.map((c) => {
      const value = jsonValue(c.value);
      return value === undefined ? { path: c.path.trim(), op: c.op } : { path: c.path.trim(), op: c.op, value };
    }),
    history: rule.history.map((h) => {
      const reads = HISTORY_KIND_FIELDS[h.kind];
      return {
        kind: h.kind,
        tool: h.tool.trim(),
        action: orNull(h.action),
        scope: h.scope,
        customerPath: h.scope === 'customer' ? orNull(h.customerPath) : null,
        paramPath: reads.paramPath ? orNull(h.paramPath) : null,
        windowSeconds: numberOrNull(h.windowSeconds),
        limit: reads.limit ? numberOrNull(h.limit) : null,
      };
    }),
    risk: rule.risk,
    decision: rule.decision,
    // A rule that asks nobody keeps the defaults (the server refuses anything else).
    ...(asksApproval(rule.decision)
      ? {
          quorum: Number(rule.quorum) || 1,
          escalation: rule.escalation.map((step) => ({ afterSeconds: Number(step.afterSeconds), role: step.role, group: orNull(step.group) })),
          expireAfterSeconds: numberOrNull(rule.expireAfterSeconds),
        }
      : { quorum: 1, escalation: [], expireAfterSeconds: null }),
    enabled: rule.enabled,
  }));
}

/** Whether two drafts would publish the same rule set. */
export const sameDraft = (a: readonly DraftRule[], b: readonly DraftRule[]): boolean => JSON.stringify(toInputs(a)) === JSON.stringify(toInputs(b));

/** The draft with the rule at `index` moved by `by` places (clamped). */
export function moved<T>(list: readonly T[], index: number, by: number): T[] {
  const to = Math.max(0, Math.min(list.length - 1, index + by));
  const next = [...list];
  const [item] = next.splice(index, 1);
  next.splice(to, 0, item);
  return next;
}
