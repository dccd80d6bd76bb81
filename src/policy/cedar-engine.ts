import { type CedarValueJson, type EntityJson, policyToJson, preparsePolicySet, statefulIsAuthorized } from '@cedar-policy/cedar-wasm/nodejs';
import { RISK_LEVELS, type RiskLevel } from '../catalog/risk';
import { POLICY_OUTCOMES, type PolicyOutcome } from './policy-decision-outcome';
import { CEDAR_NAMESPACE, type ParamType, paramType } from './cedar-schema';

/**
 * Cedar policies evaluated beside the rules (docs/policy.md, "Cedar"). A policy's effect and
 * annotations map to Toolgate's outcomes explicitly: a `forbid` that matches blocks (risk
 * `@risk`, default high); a `permit` that matches decides its `@outcome(...)` (required) at its
 * `@risk` (default: the tool's catalog risk). The gateway asks in this order: a Cedar forbid,
 * then the first rule that matches, then the Cedar permit of lowest position, then the catalog.
 */
export interface CompiledCedarPolicy {
  name: string;
  position: number;
  effect: 'permit' | 'forbid';
  outcome: PolicyOutcome;
  risk: RiskLevel | null;
}

/** An org's enabled Cedar policies, compiled once per org config version (OrgConfigCache). */
export interface CedarPolicySet {
  /** The engine's id of the parsed set (one per org: a newer version replaces it). */
  key: string;
  /** Which compilation this is: the engine holds one per key, and is loaded again when it holds another. */
  token: number;
  texts: Record<string, string>;
  policies: ReadonlyMap<string, CompiledCedarPolicy>;
  /** A stored policy that no longer reads (a newer engine): every call is blocked, naming it, until it is saved again or deleted. */
  unreadable: { name: string; error: string } | null;
}

export interface CedarRequest {
  orgId: string;
  toolName: string;
  action: string;
  params: Record<string, unknown>;
  /** The action's input schema: the params' Cedar types. */
  inputSchema: Record<string, unknown>;
  callerRole: string;
  /** Set when a person calls: the principal is then the person, in its role. */
  personId: string | null;
  runId: string;
  specialistId: string;
  defaultRisk: RiskLevel;
}

export interface CedarMatch {
  name: string;
  outcome: PolicyOutcome;
  risk: RiskLevel;
  /** The decision's explanation: the Cedar policy and its annotation. */
  reason: string;
}

/** What the org's Cedar policies say of a call: the forbid that blocks it, the permit that would decide. */
export interface CedarVerdict {
  forbid: CedarMatch | null;
  permit: CedarMatch | null;
}

/** A parsed policy's effect and the annotations Toolgate reads, or why it cannot be one. */
export function readCedarPolicy(text: string): { effect: 'permit' | 'forbid'; outcome: PolicyOutcome; risk: RiskLevel | null } | { error: string } {
  const parsed = policyToJson(text);
  if (parsed.type === 'failure') return { error: parsed.errors.map((e) => e.message).join('; ') };
  const { effect, annotations = {} } = parsed.json;
  const risk = annotations.risk ?? null;
  if (risk !== null && !(RISK_LEVELS as readonly string[]).includes(risk)) return { error: `@risk must be one of ${RISK_LEVELS.join(', ')}` };
  const outcome = annotations.outcome;
  if (effect === 'forbid') {
    if (outcome !== undefined && outcome !== 'block') return { error: 'a forbid blocks: its @outcome may only be "block"' };
    return { effect, outcome: 'block', risk: risk as RiskLevel | null };
  }
  const permitted = POLICY_OUTCOMES.filter((o) => o !== 'block');
  if (outcome === undefined || !(permitted as readonly string[]).includes(outcome)) {
    return { error: `a permit needs @outcome, one of ${permitted.join(', ')} (a forbid blocks)` };
  }
  return { effect, outcome: outcome as PolicyOutcome, risk: risk as RiskLevel | null };
}

let compilations = 0;
/** Which compilation each engine key holds now. */
const loaded = new Map<string, number>();

/**
 * Null when the org has no enabled Cedar policy (nothing is asked then). A stored policy that
 * no longer reads is not left out (a forbid left out would let through what it blocks): the set
 * then blocks every call, naming it.
 */
export function compileCedarPolicies(orgId: string, rows: readonly { name: string; position: number; text: string }[]): CedarPolicySet | null {
  if (rows.length === 0) return null;
  const policies = new Map<string, CompiledCedarPolicy>();
  const texts: Record<string, string> = {};
  let unreadable: CedarPolicySet['unreadable'] = null;
  for (const row of rows) {
    const read = readCedarPolicy(row.text);
    if ('error' in read) {
      unreadable ??= { name: row.name, error: read.error };
      continue;
    }
    policies.set(row.name, { name: row.name, position: row.position, ...read });
    texts[row.name] = row.text;
  }
  compilations += 1;
  const set = { key: `org:${orgId}`, token: compilations, texts, policies, unreadable };
  // Handed to the engine now: a set that does not parse as a whole blocks too.
  if (!unreadable) {
    const parsed = preparsePolicySet(set.key, { staticPolicies: texts });
    if (parsed.type === 'failure') set.unreadable = { name: '', error: parsed.errors.map((e) => e.message).join('; ') };
    else loaded.set(set.key, set.token);
  }
  return set;
}

/** The org's Cedar policies on a call. A forbid that errors counts as matching (fails closed); a permit that errors does not. */
export function evaluateCedar(set: CedarPolicySet, request: CedarRequest): CedarVerdict {
  if (set.unreadable) {
    const which = set.unreadable.name ? `Cedar policy "${set.unreadable.name}"` : "the org's Cedar policies";
    const reason = `${which} no longer reads (${set.unreadable.error}); blocked (fails closed)`;
    return { forbid: { name: set.unreadable.name, outcome: 'block', risk: 'high', reason }, permit: null };
  }
  let params: Record<string, CedarValueJson>;
  try {
    params = (toCedarValue(paramsType(request.inputSchema), request.params, 'params') ?? {}) as Record<string, CedarValueJson>;
  } catch (error) {
    if (!(error instanceof Unrepresentable)) throw error;
    const reason = `Cedar policies cannot be asked: ${error.message}; blocked (fails closed)`;
    return { forbid: { name: '', outcome: 'block', risk: 'high', reason }, permit: null };
  }
  if (loaded.get(set.key) !== set.token) {
    const parsed = preparsePolicySet(set.key, { staticPolicies: set.texts });
    if (parsed.type === 'failure') throw new Error(`Cedar policies of ${set.key} do not parse: ${parsed.errors.map((e) => e.message).join('; ')}`);
    loaded.set(set.key, set.token);
  }
  const uid = (type: string, id: string) => ({ type: `${CEDAR_NAMESPACE}::${type}`, id });
  const org = uid('Org', request.orgId);
  const role = uid('Role', request.callerRole);
  const principal = request.personId ? uid('Person', request.personId) : role;
  const specialist = uid('Specialist', request.specialistId);
  const resource = uid('Tool', request.toolName);
  const entities: EntityJson[] = [
    { uid: role, attrs: {}, parents: [] },
    { uid: resource, attrs: {}, parents: [org] },
    { uid: specialist, attrs: {}, parents: [org] },
  ];
  if (request.personId) entities.push({ uid: principal, attrs: {}, parents: [role] });
  const answer = statefulIsAuthorized({
    principal,
    action: uid('Action', `${request.toolName}.${request.action}`),
    resource,
    context: { params, risk: request.defaultRisk, run: request.runId, specialist: { __entity: specialist } },
    entities,
    preparsedPolicySetId: set.key,
  });
  if (answer.type === 'failure') {
    const reason = `Cedar could not decide: ${answer.errors.map((e) => e.message).join('; ')}; blocked (fails closed)`;
    return { forbid: { name: '', outcome: 'block', risk: 'high', reason }, permit: null };
  }
  const { decision, diagnostics } = answer.response;
  const policy = (id: string) => set.policies.get(id)!;
  const errored = diagnostics.errors.map((e) => ({ policy: policy(e.policyId), message: e.error.message }));
  const forbids = [
    ...(decision === 'deny' ? diagnostics.reason.map((id) => ({ policy: policy(id), message: null as string | null })) : []),
    ...errored.filter((e) => e.policy.effect === 'forbid'),
  ];
  const permits = decision === 'allow' ? diagnostics.reason.map(policy) : [];
  const first = <T>(list: T[], of: (t: T) => CompiledCedarPolicy) =>
    list.sort((a, b) => of(a).position - of(b).position || (of(a).name < of(b).name ? -1 : 1))[0];
  const forbid = first(forbids, (f) => f.policy);
  const permit = first(permits, (p) => p);
  return {
    forbid: forbid
      ? {
          name: forbid.policy.name,
          outcome: 'block',
          risk: forbid.policy.risk ?? 'high',
          reason:
            forbid.message === null
              ? `Cedar policy "${forbid.policy.name}" (forbid)`
              : `Cedar policy "${forbid.policy.name}" (forbid) could not be evaluated (${forbid.message}); blocked (fails closed)`,
        }
      : null,
    permit: permit
      ? {
          name: permit.name,
          outcome: permit.outcome,
          risk: permit.risk ?? request.defaultRisk,
          reason: `Cedar policy "${permit.name}" (position ${permit.position}, permit @outcome("${permit.outcome}"))`,
        }
      : null,
  };
}

class Unrepresentable extends Error {}

/** The params' Cedar type, once per input schema (catalog definitions are kept in memory). */
const paramsTypes = new WeakMap<object, ParamType>();
function paramsType(inputSchema: Record<string, unknown>): ParamType {
  let type = paramsTypes.get(inputSchema);
  if (!type) {
    type = paramType(inputSchema) ?? { kind: 'Record', attributes: new Map() };
    paramsTypes.set(inputSchema, type);
  }
  return type;
}

/** Cedar's decimal: at most four decimal places, within a signed 64-bit integer of ten-thousandths. */
const DECIMAL = /^-?\d{1,15}(\.\d{1,4})?$/;

/**
 * A param as a Cedar value of its schema's type; undefined leaves it out (no Cedar type). A
 * value Cedar cannot hold exactly (an integer beyond 2^53, a number with more than four
 * decimal places or in exponent form) throws: the call is blocked rather than judged on a rounded value.
 */
function toCedarValue(type: ParamType, value: unknown, at: string): CedarValueJson | undefined {
  const refuse = (why: string): never => {
    throw new Unrepresentable(`${at} ${why}`);
  };
  switch (type.kind) {
    case 'String':
      return typeof value === 'string' ? value : refuse('is not a string');
    case 'Boolean':
      return typeof value === 'boolean' ? value : refuse('is not a boolean');
    case 'Long':
      return typeof value === 'number' && Number.isSafeInteger(value) ? value : refuse('is not an integer Cedar can hold exactly');
    case 'decimal': {
      if (typeof value !== 'number') return refuse('is not a number');
      const text = Number.isInteger(value) ? `${value}.0` : String(value);
      return DECIMAL.test(text) ? { __extn: { fn: 'decimal', arg: text } } : refuse(`(${text}) is not a Cedar decimal: at most 4 decimal places`);
    }
    case 'Set':
      if (!Array.isArray(value)) return refuse('is not a list');
      return value.map((v, i) => toCedarValue(type.element, v, `${at}[${i}]`)).filter((v) => v !== undefined) as CedarValueJson[];
    case 'Record': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return refuse('is not an object');
      const record: Record<string, CedarValueJson> = {};
      for (const [name, attribute] of type.attributes) {
        if (!Object.hasOwn(value, name)) continue;
        const converted = toCedarValue(attribute.type, (value as Record<string, unknown>)[name], `${at}.${name}`);
        if (converted !== undefined) record[name] = converted;
      }
      return record;
    }
  }
}
