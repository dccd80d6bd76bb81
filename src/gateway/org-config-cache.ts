import type { SqlTransaction } from '../db/raw-transaction';
import type { PolicyRule } from '../policy/policy-rule.entity';
import type { CompiledRule } from '../policy/policy-evaluator';
import { type CedarPolicySet, compileCedarPolicies } from '../policy/cedar-engine';

interface RuleRow {
  id: string;
  name: string;
  position: number;
  tool_pattern: string;
  action_pattern: string;
  conditions: PolicyRule['conditions'];
  history: PolicyRule['history'];
  roles: string[];
  specialist_id: string | null;
  risk: PolicyRule['risk'];
  decision: PolicyRule['decision'];
  quorum: number;
  escalation: PolicyRule['escalation'];
  expire_after_seconds: number | null;
}

/** What the gateway decides with, per org: flags and ordered rules. */
export interface OrgConfig {
  configVersion: number;
  flags: ReadonlyMap<string, boolean>;
  rules: readonly CompiledRule[];
  /** Some enabled rule has history conditions: only then does a decision look for them. */
  hasHistory: boolean;
  /** The org's enabled Cedar policies, compiled; null when it has none (Cedar is not asked). */
  cedar: CedarPolicySet | null;
}

/**
 * Flags and policy rules in memory. Every change bumps orgs.config_version in the same
 * transaction; the gateway reads that version with the run it loads anyway, so a node
 * reloads exactly when something changed, on whichever node it changed, and never reads
 * rules per call otherwise.
 */
export class OrgConfigCache {
  private readonly entries = new Map<string, OrgConfig>();
  /** How many times an org's config was read from the database (tests, benchmarks). */
  loads = 0;

  /** This node holds the org's config at a version after `configVersion`: whatever was read at that version is stale. */
  hasNewer(orgId: string, configVersion: number): boolean {
    return (this.entries.get(orgId)?.configVersion ?? configVersion) > configVersion;
  }

  /**
   * The org's config at `configVersion`, loaded on a miss through `tx` itself (plain SQL):
   * the gateway holds one connection per call and must never wait for a second one.
   */
  async get(tx: SqlTransaction, orgId: string, configVersion: number): Promise<OrgConfig> {
    const cached = this.entries.get(orgId);
    if (cached && cached.configVersion === configVersion) return cached;
    this.loads += 1;
    const flags = await tx.execute<{ key: string; enabled: boolean }[]>('select key, enabled from feature_flags where org_id = ?', [orgId]);
    const rules = await tx.execute<RuleRow[]>(
      `select id, name, position, tool_pattern, action_pattern, conditions, history, roles, specialist_id, risk, decision,
              quorum, escalation, expire_after_seconds
         from policy_rules where org_id = ? and enabled = true order by position asc, created_at asc, id asc`,
      [orgId],
    );
    const cedar = await tx.execute<{ name: string; position: number; text: string }[]>(
      'select name, position, text from cedar_policies where org_id = ? and enabled = true order by position asc, name asc',
      [orgId],
    );
    const config: OrgConfig = {
      configVersion,
      cedar: compileCedarPolicies(orgId, cedar),
      hasHistory: rules.some((r) => r.history.length > 0),
      flags: new Map(flags.map((f) => [f.key, f.enabled])),
      rules: rules.map((r) => ({
        id: r.id,
        name: r.name,
        position: r.position,
        toolPattern: r.tool_pattern,
        actionPattern: r.action_pattern,
        conditions: r.conditions,
        history: r.history,
        roles: r.roles,
        specialistId: r.specialist_id,
        risk: r.risk,
        decision: r.decision,
        routing: { quorum: r.quorum, escalation: r.escalation, expireAfterSeconds: r.expire_after_seconds },
      })),
    };
    // A slower load of an older version must not replace a newer one.
    const current = this.entries.get(orgId);
    if (!current || current.configVersion <= configVersion) this.entries.set(orgId, config);
    return config;
  }
}
