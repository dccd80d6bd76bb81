import { createHash } from 'node:crypto';
import type { SqlRunner } from '../db/raw-transaction';

/**
 * Rules over history (docs/policy.md): a condition over what the run, the org or one end
 * customer has already done. The gateway answers every history condition of the candidate
 * rules of one decision in one statement (`readHistory`), inside its decide transaction.
 */
export const HISTORY_KINDS = ['count', 'sum', 'not_after'] as const;
export const HISTORY_SCOPES = ['run', 'org', 'customer'] as const;
type HistoryKind = (typeof HISTORY_KINDS)[number];
type HistoryScope = (typeof HISTORY_SCOPES)[number];

/** The longest sliding window: 31 days. */
export const MAX_HISTORY_WINDOW_SECONDS = 31 * 86_400;

export interface HistoryCondition {
  /**
   * count: calls of `tool` (this call included when it is one) exceed `limit`.
   * sum: `paramPath` summed over those calls (this one included) exceeds `limit`.
   * not_after: no succeeded call of `tool` with the same `paramPath` value came before this one.
   */
  kind: HistoryKind;
  /** The tool whose calls are looked at (its exact name). */
  tool: string;
  /** Its exact action; null: any action of the tool. */
  action: string | null;
  /** run: this call's run; org: the whole org; customer: calls whose `customerPath` param equals this call's. */
  scope: HistoryScope;
  /** customer scope: the param naming the end customer, in this call and in the earlier ones. */
  customerPath: string | null;
  /** sum: the param summed; not_after: the param that must be the same in the earlier call. */
  paramPath: string | null;
  /** Only calls of the last so many seconds; null: the whole run (run scope only). */
  windowSeconds: number | null;
  /** count and sum: the rule matches when the aggregate with this call is above it. */
  limit: number | null;
}

/** What one decision asks: the calls before it, in its run, org and (per condition) customer. */
export interface HistorySubject {
  orgId: string;
  runId: string;
  toolName: string;
  action: string;
  params: Record<string, unknown>;
  /**
   * The params as stored (redacted, tool_calls.input_redacted) when they are not `params`
   * itself: a customer or order key is compared with the earlier calls' stored params, and
   * shown in the reason, as stored. (A key redaction hides matches every hidden key: the
   * limit is shared, never escaped.)
   */
  storedParams?: unknown;
  /** The decision's time (the gateway's clock): windows end here. */
  now: Date;
  /** A replay: only calls recorded before this time count, as PostgreSQL prints it (microseconds kept). */
  before?: string;
  /** An approved call decided again: it is recorded already, and counts as "this call", not as an earlier one. */
  exceptCallId?: string;
}

/** A history condition answered: the aggregate with this call, and whether the rule's condition holds. */
export interface HistoryAnswer {
  value: number;
  holds: boolean;
  explanation: string;
}

export type HistoryAnswers = ReadonlyMap<HistoryCondition, HistoryAnswer>;

/**
 * Which recorded calls count toward a limit: every call the policy let through or sent to a
 * person, whatever became of it, except the blocked ones (blocked by policy or before it,
 * rejected, expired, cancelled). A call waiting for approval counts, so that two refunds in
 * parallel cannot both slip under a limit; a failed one counts (it may have reached the vendor).
 */
const COUNTED = "c.status <> 'blocked'";

/** A key value a scope can compare: a string, number or boolean param; anything else is no key. */
function keyOf(params: unknown, path: string | null): string | null {
  if (path === null) return null;
  const found = readParam(params, path);
  if (typeof found === 'string') return found;
  if (typeof found === 'number' || typeof found === 'boolean') return JSON.stringify(found);
  return null;
}

function readParam(params: unknown, path: string): unknown {
  let current = params;
  for (const part of pathParts(path)) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

const pathParts = (path: string): string[] => path.match(/[^.[\]]+/g) ?? [];

/** A param path as a PostgreSQL text[] literal, each part quoted (paths are validated: letters, digits, _ $ -). */
const pathLiteral = (path: string) =>
  `{${pathParts(path)
    .map((part) => `"${part}"`)
    .join(',')}}`;

function toAmount(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return 0;
}

/** Whether this call itself is one of the calls the condition looks at. */
const isCounted = (condition: HistoryCondition, subject: HistorySubject) =>
  subject.toolName === condition.tool && (condition.action === null || condition.action === subject.action);

/** What a condition needs of this call before any query: its scope's key, or why it has none (the condition then holds). */
function keysOf(condition: HistoryCondition, subject: HistorySubject): { customer: string | null; param: string | null; missing: string | null } {
  // Keys are compared with the earlier calls' stored params, so they are read as stored too.
  const stored = subject.storedParams ?? subject.params;
  const customer = condition.scope === 'customer' ? keyOf(stored, condition.customerPath) : null;
  const param = condition.kind === 'not_after' ? keyOf(stored, condition.paramPath) : null;
  if (condition.scope === 'customer' && customer === null) return { customer, param, missing: condition.customerPath };
  if (condition.kind === 'not_after' && param === null) return { customer, param, missing: condition.paramPath };
  return { customer, param, missing: null };
}

/**
 * One statement for every condition: a JSON array of their aggregates over the earlier calls.
 * Counts and sums read each (tool, run or org) once: one scan from the widest window on, each
 * condition an aggregate with its own FILTER (action, window, customer). The SQL refers to its
 * arguments as `$1[n]` (one text[]): it runs inside policy_history(), which takes the locks
 * first, then executes it with a snapshot taken after them.
 */
function historyStatement(conditions: readonly HistoryCondition[], subject: HistorySubject): { sql: string; args: string[]; lockKeys: string[] } {
  const args: string[] = [];
  const arg = (value: string) => {
    args.push(value);
    return `$1[${args.length}]`;
  };
  const since = (seconds: number) => new Date(subject.now.getTime() - seconds * 1000);
  const common = () => [
    ...(subject.before ? [`c.created_at < ${arg(subject.before)}::timestamptz`] : []),
    ...(subject.exceptCallId ? [`c.id <> ${arg(subject.exceptCallId)}::uuid`] : []),
  ];
  const locks = new Set<string>();
  const values: string[] = [];
  const groups = new Map<
    string,
    { tool: string; run: boolean; members: { index: number; condition: HistoryCondition; customer: string | null }[] }
  >();
  conditions.forEach((condition, index) => {
    const keys = keysOf(condition, subject);
    if (keys.missing !== null) {
      values[index] = '0';
      return;
    }
    if (condition.kind === 'not_after') {
      const where = [`c.org_id = ${arg(subject.orgId)}::uuid`, `c.tool_name = ${arg(condition.tool)}`, "c.status = 'succeeded'"];
      if (condition.action !== null) where.push(`c.action = ${arg(condition.action)}`);
      if (condition.scope === 'run') where.push(`c.run_id = ${arg(subject.runId)}::uuid`);
      if (keys.customer !== null) where.push(`c.input_redacted #>> ${arg(pathLiteral(condition.customerPath!))}::text[] = ${arg(keys.customer)}`);
      if (condition.windowSeconds !== null) where.push(`c.created_at > ${arg(since(condition.windowSeconds).toISOString())}::timestamptz`);
      where.push(`c.input_redacted #>> ${arg(pathLiteral(condition.paramPath!))}::text[] = ${arg(keys.param!)}`, ...common());
      values[index] = `(select count(*) from (select 1 from tool_calls c where ${where.join(' and ')} limit 1) found)`;
      return;
    }
    locks.add(lockKey(condition, subject, keys.customer));
    const run = condition.scope === 'run';
    const key = `${run}|${condition.tool}`;
    const group = groups.get(key) ?? { tool: condition.tool, run, members: [] };
    group.members.push({ index, condition, customer: keys.customer });
    groups.set(key, group);
  });
  const scans = [...groups.values()].map((group, g) => {
    const where = [`c.org_id = ${arg(subject.orgId)}::uuid`, `c.tool_name = ${arg(group.tool)}`, COUNTED];
    if (group.run) where.push(`c.run_id = ${arg(subject.runId)}::uuid`);
    const windows = group.members.map((m) => m.condition.windowSeconds);
    if (!windows.includes(null)) where.push(`c.created_at > ${arg(since(Math.max(...(windows as number[]))).toISOString())}::timestamptz`);
    where.push(...common());
    const aggregates = group.members.map(({ index, condition, customer }, j) => {
      values[index] = `g${g}->${j}`;
      const filters: string[] = [];
      if (condition.action !== null) filters.push(`c.action = ${arg(condition.action)}`);
      if (condition.windowSeconds !== null) filters.push(`c.created_at > ${arg(since(condition.windowSeconds).toISOString())}::timestamptz`);
      if (customer !== null) filters.push(`c.input_redacted #>> ${arg(pathLiteral(condition.customerPath!))}::text[] = ${arg(customer)}`);
      const filter = filters.length > 0 ? ` filter (where ${filters.join(' and ')})` : '';
      if (condition.kind === 'count') return `count(*)${filter}`;
      const path = `${arg(pathLiteral(condition.paramPath!))}::text[]`;
      // A stored amount that is not a number (absent, or redacted) adds nothing.
      const amount = `case jsonb_typeof(c.input_redacted #> ${path}) when 'number' then (c.input_redacted #>> ${path})::numeric
        when 'string' then case when (c.input_redacted #>> ${path}) ~ '^\\s*-?[0-9]+(\\.[0-9]+)?\\s*$' then (c.input_redacted #>> ${path})::numeric end end`;
      return `coalesce(sum(${amount})${filter}, 0)`;
    });
    return `(select jsonb_build_array(${aggregates.join(', ')}) from tool_calls c where ${where.join(' and ')}) as g${g}`;
  });
  // offset 0: the scans run once each, not once per condition that reads them.
  const from = scans.length > 0 ? ` from (select ${scans.join(', ')} offset 0) scans` : '';
  return { sql: `select jsonb_build_array(${values.join(', ')})${from}`, args, lockKeys: [...locks].sort() };
}

/**
 * The advisory lock a limit is counted under: two decisions that count toward the same limit
 * (the same run, the same org and tool, the same customer and tool) take turns, so the later
 * one sees the earlier one's call. A 64-bit hash; a collision only makes two decisions wait.
 */
function lockKey(condition: HistoryCondition, subject: HistorySubject, customer: string | null): string {
  const scope =
    condition.scope === 'run'
      ? ['run', subject.runId]
      : condition.scope === 'org'
        ? ['org', subject.orgId, condition.tool]
        : ['customer', subject.orgId, condition.tool, customer];
  return createHash('sha256').update(JSON.stringify(scope)).digest().readBigInt64BE(0).toString();
}

/**
 * The aggregates of `conditions` for `subject`, in one statement: policy_history() takes the
 * limits' advisory locks (held to the end of the transaction), then reads. A replay (subject
 * `before`) runs it with no locks, read-only.
 */
export async function readHistory(
  tx: SqlRunner,
  conditions: readonly HistoryCondition[],
  subject: HistorySubject,
  options: { lock: boolean } = { lock: true },
): Promise<HistoryAnswers> {
  const { sql, args, lockKeys } = historyStatement(conditions, subject);
  // The arrays travel as JSON text: the ORM's query builder would spread a JavaScript array.
  const [row] = await tx.execute<{ history: (number | string)[] }[]>(
    `select policy_history(array(select jsonb_array_elements_text(?::jsonb)::bigint), ?, array(select jsonb_array_elements_text(?::jsonb))) as history`,
    [JSON.stringify(options.lock ? lockKeys : []), sql, JSON.stringify(args)],
  );
  return answersOf(conditions, subject, row.history.map(Number));
}

/** The aggregates of the earlier calls, with this call added, as each condition reads them. */
function answersOf(conditions: readonly HistoryCondition[], subject: HistorySubject, earlier: readonly number[]): HistoryAnswers {
  return new Map(conditions.map((condition, i) => [condition, answerOf(condition, subject, earlier[i] ?? 0)]));
}

function answerOf(condition: HistoryCondition, subject: HistorySubject, earlier: number): HistoryAnswer {
  const keys = keysOf(condition, subject);
  const where = scopeText(condition, keys.customer);
  // Without the key its scope needs, the condition cannot be checked: it holds (fails closed).
  if (keys.missing !== null) {
    return { value: 0, holds: true, explanation: `this call has no ${keys.missing}: ${condition.kind} ${where} cannot be checked` };
  }
  const self = isCounted(condition, subject);
  const label = `${condition.tool}${condition.action ? `.${condition.action}` : ''}`;
  switch (condition.kind) {
    case 'count': {
      const value = earlier + (self ? 1 : 0);
      const counted = self ? `${ordinal(value)} ${label} call` : `${value} earlier ${label} call(s)`;
      return { value, holds: value > condition.limit!, explanation: `${counted} ${where}; limit ${condition.limit}` };
    }
    case 'sum': {
      const value = round(earlier + (self ? toAmount(readParam(subject.params, condition.paramPath!)) : 0));
      return {
        value,
        holds: value > condition.limit!,
        explanation: `${label} ${condition.paramPath} ${where}: ${value}${self ? ' with this call' : ''}; limit ${condition.limit}`,
      };
    }
    case 'not_after':
      return {
        value: earlier,
        holds: earlier === 0,
        explanation: `${earlier === 0 ? 'no' : 'a'} succeeded ${label} with the same ${condition.paramPath} (${keys.param}) ${where}`,
      };
  }
}

/** Sums of amounts like 0.1 + 0.2 read as 0.3. */
const round = (value: number) => Math.round(value * 1e6) / 1e6;

function scopeText(condition: HistoryCondition, customer: string | null): string {
  const scope =
    condition.scope === 'run'
      ? 'in this run'
      : condition.scope === 'org'
        ? 'in this org'
        : `for ${condition.customerPath} ${customer === null ? '(none)' : JSON.stringify(customer)}`;
  return condition.windowSeconds === null ? scope : `${scope} in the last ${durationText(condition.windowSeconds)}`;
}

function durationText(seconds: number): string {
  if (seconds % 86_400 === 0 && seconds > 2 * 86_400) return `${seconds / 86_400}d`;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}min`;
  return `${seconds}s`;
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
