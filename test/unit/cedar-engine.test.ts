import { compileCedarPolicies, evaluateCedar, type CedarRequest } from '../../src/policy/cedar-engine';

/** The Cedar request Toolgate builds (docs/policy.md, "Cedar"): the person in its role, the tool in its org, the context. */
const REQUEST: CedarRequest = {
  orgId: 'org-1',
  toolName: 'refund',
  action: 'issue',
  params: { amount: 12.5, tags: ['vip'], customer: { country: 'FR' } },
  inputSchema: {
    type: 'object',
    properties: {
      amount: { type: 'number' },
      tags: { type: 'array', items: { type: 'string' } },
      customer: { type: 'object', properties: { country: { type: 'string' } } },
      anything: {},
    },
  },
  callerRole: 'admin',
  personId: 'person-1',
  runId: 'run-1',
  specialistId: 'spec-1',
  defaultRisk: 'medium',
};

const forbid = (name: string, when: string) => ({ name, position: 1, text: `forbid (principal, action, resource) when { ${when} };` });

test.each([
  ['a person is in its role', 'principal in Toolgate::Role::"admin"', true],
  ['the principal is the person', 'principal == Toolgate::Person::"person-1"', true],
  ['another role', 'principal in Toolgate::Role::"agent"', false],
  ['the tool is in its org', 'resource in Toolgate::Org::"org-1"', true],
  ['the specialist and the run', 'context.specialist == Toolgate::Specialist::"spec-1" && context.run == "run-1"', true],
  ['the catalog risk', 'context.risk == "medium"', true],
  ['a nested record and a set', 'context.params.customer.country == "FR" && context.params.tags.contains("vip")', true],
  ['a decimal', 'context.params.amount == decimal("12.5")', true],
])('%s', (_, when, matches) => {
  const set = compileCedarPolicies(`unit-${when}`, [forbid('p', when)])!;
  expect(set.unreadable).toBeNull();
  expect(evaluateCedar(set, REQUEST).forbid?.reason ?? null).toBe(matches ? 'Cedar policy "p" (forbid)' : null);
});

test('without a person the principal is the role', () => {
  const set = compileCedarPolicies('unit-role', [forbid('p', 'principal == Toolgate::Role::"admin"')])!;
  expect(evaluateCedar(set, { ...REQUEST, personId: null }).forbid?.name).toBe('p');
  expect(evaluateCedar(set, REQUEST).forbid).toBeNull();
});

test('among permits that match, the lowest position decides; no policy: null', () => {
  const permit = (name: string, position: number, outcome: string) => ({
    name,
    position,
    text: `@outcome("${outcome}") @risk("low") permit (principal, action, resource);`,
  });
  const set = compileCedarPolicies('unit-permits', [permit('b', 5, 'observe'), permit('a', 3, 'require_client_approval')])!;
  expect(evaluateCedar(set, REQUEST)).toEqual({
    forbid: null,
    permit: {
      name: 'a',
      outcome: 'require_client_approval',
      risk: 'low',
      reason: 'Cedar policy "a" (position 3, permit @outcome("require_client_approval"))',
    },
  });
  expect(compileCedarPolicies('unit-none', [])).toBeNull();
});
