import type { EntityManager } from '@mikro-orm/postgresql';
import type { RiskLevel } from '../catalog/risk';
import { AppError, badInput } from '../errors/app-error';
import { findSpecialist } from '../orgs/org.service';
import type { PolicyOutcome } from './policy-decision-outcome';
import { type CompiledRule, historyCandidates } from './policy-evaluator';
import { readHistory } from './policy-history';
import { replayPolicy, type ReplayVerdict } from './policy-replay';
import { type PolicyRuleInput, ruleFields, validateRule } from './policy-rule.service';
import { recordReplay } from './policy-replay-record';

const MAX_SIMULATION_DAYS = 92;
export const MAX_SIMULATION_EXAMPLES = 100;
/** A replay reads up to 92 days of calls: a fixed large cost, like verifyLedger's (src/api/limits.ts). */
export const SIMULATE_POLICY_COST = 1000;
export const MAX_DRAFT_RULES = 500;
const DEFAULT_EXAMPLES = 20;
const DEFAULT_PAGE_SIZE = 1000;

export interface SimulationRequest {
  from: Date;
  to: Date;
  rules: PolicyRuleInput[];
  /** How many examples to return (default 20, at most 100). */
  first?: number | null;
  /** Calls read per query (tests set it small). */
  pageSize?: number;
  /** Who replays (recorded with the replay); null from the command line. */
  actorKeyId?: string | null;
}

/** A draft rule as the answer names it: its place in the draft, and the id it would replace. */
export interface SimulatedRule {
  index: number;
  id: string | null;
  name: string;
  position: number;
}

/** Calls whose decision the draft changes, or cannot decide (newOutcome null), by old outcome, new outcome and deciding rule. */
export interface SimulatedChange {
  oldOutcome: PolicyOutcome;
  newOutcome: PolicyOutcome | null;
  /** The rule that decides the new outcome, or the one that cannot be decided; null: the catalog default. */
  rule: SimulatedRule | null;
  count: number;
}

export interface SimulationExample {
  toolCallId: string;
  toolName: string;
  action: string;
  createdAt: Date;
  oldOutcome: PolicyOutcome;
  oldMatchedRuleId: string | null;
  oldReason: string;
  newOutcome: PolicyOutcome | null;
  rule: SimulatedRule | null;
}

export interface PolicySimulation {
  /** The replay's record (policy_replays): what publishPolicy names to publish this draft. */
  replayId: string;
  /** The org's policy version the calls were replayed under. */
  policyVersion: number;
  callsRead: number;
  changedCount: number;
  undecidableCount: number;
  changes: SimulatedChange[];
  examples: SimulationExample[];
  /**
   * The org's enabled Cedar policies, which a replay does not evaluate (docs/policy.md, "Cedar"):
   * when above 0, a call a Cedar policy decided may show as changed by the draft.
   */
  cedarPoliciesNotReplayed: number;
}

/** One recorded call with its decision, as the gateway saw it. */
interface RecordedCallRow {
  id: string;
  run_id: string;
  cursor_at: string;
  created_at: Date;
  tool_name: string;
  action: string;
  input_redacted: unknown;
  outcome: PolicyOutcome;
  shadow_outcome: PolicyOutcome | null;
  matched_rule_id: string | null;
  reason: string;
  caller_role: string;
  specialist_id: string;
  default_risk: RiskLevel;
}

/**
 * Replays the org's recorded calls of [from, to) against a draft rule set: what each call's
 * decision would have been, with the inputs the gateway had (tool, action, caller role, the
 * run's specialist, the tool's default risk, the stored redacted params). It reads in keyset
 * pages inside one read-only transaction, the range never held whole; then it records that it
 * ran (policy_replays: the draft's hash, the policy version, the counts), and writes nothing else.
 */
export async function simulatePolicy(em: EntityManager, orgId: string, request: SimulationRequest): Promise<PolicySimulation> {
  const examplesWanted = checkRequest(request);
  const drafts = request.rules.map((rule, index) => ({ rule, index }));
  const compiled = compileDraft(request.rules);
  const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
  const { policyVersion, tally } = await em.transactional(async (tx) => {
    await tx.execute('set transaction read only');
    // Read in the replay's snapshot: the version its calls were decided again under.
    const [org] = await tx.execute<{ policy_version: number }[]>('select policy_version from orgs where id = ?', [orgId]);
    for (const { rule } of drafts) if (rule.specialistId) await findSpecialist(tx, orgId, rule.specialistId);
    const tally = new SimulationTally(examplesWanted, compiled.named);
    let after: { at: string; id: string } | null = null;
    for (;;) {
      const rows: RecordedCallRow[] = await readPage(tx, orgId, request, after, pageSize);
      for (const row of rows) {
        const input = inputOf(row);
        // Rules over history are answered as of the call: over the calls recorded before it (no locks: it only reads).
        const wanted = historyCandidates(compiled.rules, input);
        const subject = {
          orgId,
          runId: row.run_id,
          toolName: input.toolName,
          action: input.action,
          params: input.params,
          now: new Date(row.created_at),
          before: row.cursor_at,
        };
        const history = wanted.length > 0 ? await readHistory(tx, wanted, subject, { lock: false }) : undefined;
        tally.add(row, replayPolicy(compiled.rules, input, history));
      }
      if (rows.length < pageSize) break;
      const last = rows[rows.length - 1];
      after = { at: last.cursor_at, id: last.id };
    }
    const [cedar] = await tx.execute<{ count: number }[]>('select count(*)::int as count from cedar_policies where org_id = ? and enabled = true', [
      orgId,
    ]);
    return { policyVersion: org.policy_version, tally: { ...tally.result(), cedarPoliciesNotReplayed: cedar.count } };
  });
  const replayId = await recordReplay(em, orgId, { ...request, policyVersion, ...tally });
  return { replayId, policyVersion, ...tally };
}

function checkRequest(request: SimulationRequest): number {
  const { from, to } = request;
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw badInput('from and to must be timestamps', { field: 'from' });
  if (to.getTime() <= from.getTime()) throw badInput('to must be after from: the range is from inclusive, to exclusive', { field: 'to' });
  if (to.getTime() - from.getTime() > MAX_SIMULATION_DAYS * 86_400_000) {
    throw new AppError('SIMULATION_RANGE_TOO_LARGE', `A replay covers at most ${MAX_SIMULATION_DAYS} days; replay a shorter range`, {
      maxDays: MAX_SIMULATION_DAYS,
    });
  }
  const first = request.first ?? DEFAULT_EXAMPLES;
  if (!Number.isInteger(first) || first < 0 || first > MAX_SIMULATION_EXAMPLES) {
    throw badInput(`first must be an integer from 0 to ${MAX_SIMULATION_EXAMPLES}`, { field: 'first' });
  }
  if (request.rules.length > MAX_DRAFT_RULES) throw badInput(`a draft holds at most ${MAX_DRAFT_RULES} rules`, { field: 'rules' });
  for (const rule of request.rules) validateRule(rule);
  return first;
}

/** The draft as the gateway would load it: enabled rules by position (ties in the draft's order). */
function compileDraft(rules: PolicyRuleInput[]): { rules: CompiledRule[]; named: Map<CompiledRule, SimulatedRule> } {
  const named = new Map<CompiledRule, SimulatedRule>();
  const compiled = rules
    .map((input, index) => ({ input, index }))
    .filter(({ input }) => input.enabled)
    .sort((a, b) => a.input.position - b.input.position || a.index - b.index)
    .map(({ input, index }) => {
      const rule: CompiledRule = { id: input.id ?? `draft-${index}`, ...ruleFields(input) };
      named.set(rule, { index, id: input.id ?? null, name: rule.name, position: rule.position });
      return rule;
    });
  return { rules: compiled, named };
}

/**
 * One page by (created_at, id). The cursor is the timestamp as PostgreSQL prints it:
 * microseconds a JavaScript Date would drop. A call's default risk is the recorded one where
 * no rule decided it (the catalog's risk then), else the catalog's own.
 */
async function readPage(
  tx: EntityManager,
  orgId: string,
  request: SimulationRequest,
  after: { at: string; id: string } | null,
  pageSize: number,
): Promise<RecordedCallRow[]> {
  const keyset = after ? 'and (tc.created_at, tc.id) > (?::timestamptz, ?::uuid)' : '';
  return tx.execute<RecordedCallRow[]>(
    `select tc.id, tc.run_id, tc.created_at::text as cursor_at, tc.created_at, tc.tool_name, tc.action, tc.input_redacted,
            pd.outcome, pd.shadow_outcome, pd.matched_rule_id, pd.reason, pd.caller_role, r.specialist_id,
            case when pd.matched_rule_id is null and pd.reason like '%no rule matched%' then pd.risk
                 else coalesce(td.default_risk, pd.risk) end as default_risk
       from tool_calls tc
       join policy_decisions pd on pd.id = tc.policy_decision_id and pd.org_id = tc.org_id
       join agent_runs r on r.id = tc.run_id and r.org_id = tc.org_id
       left join lateral (
         select d.default_risk from tool_definitions d
          where d.tool_name = tc.tool_name and d.action = tc.action and (d.org_id = tc.org_id or d.org_id is null)
          order by d.org_id nulls last limit 1
       ) td on true
      where tc.org_id = ? and tc.created_at >= ? and tc.created_at < ? ${keyset}
      order by tc.created_at, tc.id
      limit ?`,
    [orgId, request.from, request.to, ...(after ? [after.at, after.id] : []), pageSize],
  );
}

function inputOf(row: RecordedCallRow) {
  const params = row.input_redacted !== null && typeof row.input_redacted === 'object' ? (row.input_redacted as Record<string, unknown>) : {};
  return {
    toolName: row.tool_name,
    action: row.action,
    params,
    callerRole: row.caller_role,
    specialistId: row.specialist_id,
    defaultRisk: row.default_risk,
  };
}

/** Counts and the first examples, in the order calls were read; memory bounded by the groups, not the calls. */
class SimulationTally {
  private callsRead = 0;
  private changedCount = 0;
  private undecidableCount = 0;
  private readonly groups = new Map<string, SimulatedChange>();
  private readonly examples: SimulationExample[] = [];

  constructor(
    private readonly examplesWanted: number,
    private readonly named: Map<CompiledRule, SimulatedRule>,
  ) {}

  add(row: RecordedCallRow, verdict: ReplayVerdict): void {
    this.callsRead += 1;
    // What the rules decided then: in shadow mode the call was allowed, but the rules said shadow_outcome.
    const oldOutcome = row.shadow_outcome ?? row.outcome;
    const newOutcome = verdict.kind === 'decided' ? verdict.outcome : null;
    if (newOutcome === oldOutcome) return;
    if (newOutcome === null) this.undecidableCount += 1;
    else this.changedCount += 1;
    const rule = verdict.rule ? (this.named.get(verdict.rule) ?? null) : null;
    const key = `${oldOutcome}|${newOutcome ?? '?'}|${rule?.index ?? '-'}`;
    const group = this.groups.get(key);
    if (group) group.count += 1;
    else this.groups.set(key, { oldOutcome, newOutcome, rule, count: 1 });
    if (this.examples.length < this.examplesWanted) {
      this.examples.push({
        toolCallId: row.id,
        toolName: row.tool_name,
        action: row.action,
        createdAt: new Date(row.created_at),
        oldOutcome,
        oldMatchedRuleId: row.matched_rule_id,
        oldReason: row.reason,
        newOutcome,
        rule,
      });
    }
  }

  result(): Omit<PolicySimulation, 'replayId' | 'policyVersion' | 'cedarPoliciesNotReplayed'> {
    // Largest first; ties by the draft's rule order (the catalog default last), so the answer is stable.
    const order = (c: SimulatedChange) => c.rule?.index ?? Number.MAX_SAFE_INTEGER;
    const changes = [...this.groups.values()].sort((a, b) => b.count - a.count || order(a) - order(b));
    return {
      callsRead: this.callsRead,
      changedCount: this.changedCount,
      undecidableCount: this.undecidableCount,
      changes,
      examples: this.examples,
    };
  }
}
