import { createHash } from 'node:crypto';
import { canonicalJson } from '../ledger/canonical-json';
import { type PolicyRuleInput, ruleFields } from './policy-rule.service';

/**
 * A draft rule set's identity: sha256 over its canonical JSON, each rule as it would be
 * stored (ruleFields: name trimmed, history conditions filled, roles once), with the id it
 * replaces and whether it is on, in the draft's order. A replay and a publish of one draft
 * hash the same whichever path sent it (API or command line); any other draft does not.
 */
export function draftHash(rules: readonly PolicyRuleInput[]): string {
  const normalized = rules.map((rule) => {
    const fields = ruleFields(rule);
    const conditions = fields.conditions.map((c) => ({ path: c.path, op: c.op, value: c.value ?? null }));
    return { ...fields, conditions, id: rule.id ?? null, enabled: rule.enabled };
  });
  return createHash('sha256')
    .update(canonicalJson(['toolgate/policy-draft/v1', normalized]))
    .digest('hex');
}
