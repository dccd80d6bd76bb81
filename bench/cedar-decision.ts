import { evaluateCedar, compileCedarPolicies } from '../src/policy/cedar-engine';
import { type CompiledRule, evaluatePolicy, type PolicyInput } from '../src/policy/policy-evaluator';
import { percentile } from './lib/stats';
import { envInt } from './lib/timing';

/**
 * `npm run bench:cedar`: the cost of one policy decision in process (no database), the
 * built-in evaluator against the same decision with Cedar policies (docs/policy.md, "Cedar"),
 * with 1, 20 and 100 of each. Worst case for both: every rule and every policy applies to the
 * called action and is evaluated to its condition, none matches (the catalog's default decides).
 * Cedar's side includes building the request (the params as Cedar values) and the decision.
 * BENCH_CEDAR_DECISIONS (20,000) timed decisions per case, after a tenth as warm-up.
 */
const SCHEMA = {
  type: 'object',
  properties: { orderId: { type: 'string' }, amount: { type: 'number' }, items: { type: 'integer' } },
  required: ['orderId', 'amount'],
};
const INPUT: PolicyInput = {
  toolName: 'order_lookup',
  action: 'lookup',
  params: { orderId: '12345', amount: 120.5, items: 3 },
  callerRole: 'agent',
  specialistId: '00000000-0000-4000-8000-000000000001',
  defaultRisk: 'low',
};

function rules(n: number): CompiledRule[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `rule-${i}`,
    name: `rule ${i}`,
    position: i,
    toolPattern: 'order_lookup',
    actionPattern: '*',
    conditions: [
      { path: 'orderId', op: 'equals', value: `other-${i}` },
      { path: 'amount', op: 'gt', value: 1000 + i },
    ],
    roles: [],
    specialistId: null,
    risk: 'high',
    decision: i % 2 === 0 ? 'block' : 'require_expert_approval',
  }));
}

function cedarPolicies(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    name: `policy ${i}`,
    position: i,
    text:
      i % 2 === 0
        ? `forbid (principal, action == Toolgate::Action::"order_lookup.lookup", resource) when { context.params.orderId == "other-${i}" && context.params.amount.greaterThan(decimal("${1000 + i}.0")) };`
        : `@outcome("require_expert_approval") @risk("high") permit (principal, action == Toolgate::Action::"order_lookup.lookup", resource) when { context.params.orderId == "other-${i}" && context.params.amount.greaterThan(decimal("${1000 + i}.0")) };`,
  }));
}

/** Wall-clock µs per decision (p50, p99) and CPU µs per decision (mean; less sensitive to a shared machine). */
function time(decide: () => unknown, count: number): { p50: number; p99: number; cpu: number } {
  for (let i = 0; i < Math.ceil(count / 10); i += 1) decide();
  const us = new Float64Array(count);
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < count; i += 1) {
    const start = process.hrtime.bigint();
    decide();
    us[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  const cpuUsed = process.cpuUsage(cpuStart);
  us.sort();
  return { p50: percentile(us, 50), p99: percentile(us, 99), cpu: (cpuUsed.user + cpuUsed.system) / count };
}

function main(): void {
  const count = envInt('BENCH_CEDAR_DECISIONS', 20_000);
  const rows: string[] = [
    '| policies | built-in p50 / p99 µs | built-in CPU µs | Cedar p50 / p99 µs | Cedar CPU µs | Cedar / built-in (p50) |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const n of [1, 20, 100]) {
    const compiled = rules(n);
    const set = compileCedarPolicies(`bench-${n}`, cedarPolicies(n));
    if (!set || set.policies.size !== n) throw new Error(`Cedar policies of the ${n} case do not read`);
    const request = { ...INPUT, orgId: `bench-${n}`, inputSchema: SCHEMA, personId: null, runId: 'run-1' };
    const check = evaluateCedar(set, request);
    if (check.forbid || check.permit) throw new Error('a Cedar policy matched: the bench wants none to');
    const builtin = time(() => evaluatePolicy(compiled, INPUT, false), count);
    const cedar = time(() => evaluatePolicy([], INPUT, false, undefined, evaluateCedar(set, request)), count);
    const f = (v: number) => v.toFixed(1);
    rows.push(
      `| ${n} | ${f(builtin.p50)} / ${f(builtin.p99)} | ${f(builtin.cpu)} | ${f(cedar.p50)} / ${f(cedar.p99)} | ${f(cedar.cpu)} | ${(cedar.p50 / builtin.p50).toFixed(0)}× |`,
    );
    process.stderr.write(`${n} policies done\n`);
  }
  process.stdout.write(`${rows.join('\n')}\n`);
}

main();
