import { replayPolicy } from '../../src/policy/policy-replay';
import type { CompiledRule, PolicyInput } from '../../src/policy/policy-evaluator';
import type { PolicyCondition } from '../../src/policy/policy-rule.entity';

/** Deciding a stored call again: what redaction hid is unknown, and an unknown rule stops the walk. */
const rule = (id: string, conditions: PolicyCondition[], fields: Partial<CompiledRule> = {}): CompiledRule => ({
  id,
  name: id,
  position: 0,
  toolPattern: '*',
  actionPattern: '*',
  conditions,
  roles: [],
  specialistId: null,
  risk: 'high',
  decision: 'block',
  ...fields,
});
const input = (params: Record<string, unknown>): PolicyInput => ({
  toolName: 'invoice',
  action: 'send',
  params,
  callerRole: 'agent',
  specialistId: 's',
  defaultRisk: 'medium',
});
const amountOver = rule('amount', [{ path: 'customer.limit', op: 'gt', value: 10 }]);

test.each([
  ['a plain value decides', { customer: { limit: 20 } }, 'decided'],
  ['a redacted value', { customer: { limit: '[REDACTED]' } }, 'undecidable'],
  ['a value cut below the depth cap', { customer: '[TRUNCATED]' }, 'undecidable'],
  ['a redacted ancestor', { customer: '[REDACTED]' }, 'undecidable'],
  ['a string holding a marker', { customer: { limit: 'card [REDACTED] 20' } }, 'undecidable'],
  ['a missing path is false, not unknown', { other: 1 }, 'decided'],
])('%s', (_name, params, kind) => {
  expect(replayPolicy([amountOver], input(params)).kind).toBe(kind);
});

test('a false condition lets the next rule decide; an unknown one stops the walk with its rule', () => {
  const later = rule('later', [], { decision: 'observe' });
  const other = rule('other', [{ path: 'country', op: 'equals', value: 'FR' }]);
  expect(replayPolicy([other, later], input({ country: 'DE' }))).toEqual({ kind: 'decided', outcome: 'observe', rule: later });
  expect(replayPolicy([other, later], input({ country: '[REDACTED]' }))).toEqual({ kind: 'undecidable', rule: other });
  // `exists` over a redacted key: the key was kept, so its presence is known.
  const present = rule('present', [{ path: 'token', op: 'exists', value: true }]);
  expect(replayPolicy([present], input({ token: '[REDACTED]' }))).toEqual({ kind: 'decided', outcome: 'block', rule: present });
  // No rule: the catalog default of the tool's risk.
  expect(replayPolicy([], input({}))).toEqual({ kind: 'decided', outcome: 'observe', rule: null });
});
