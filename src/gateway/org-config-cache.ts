import type { EntityManager } from '@mikro-orm/postgresql';
import { FeatureFlag } from '../orgs/feature-flag.entity';
import { PolicyRule } from '../policy/policy-rule.entity';
import type { CompiledRule } from '../policy/policy-evaluator';

/** What the gateway decides with, per org: flags and ordered rules. */
export interface OrgConfig {
  configVersion: number;
  flags: ReadonlyMap<string, boolean>;
  rules: readonly CompiledRule[];
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

  async get(em: EntityManager, orgId: string, configVersion: number): Promise<OrgConfig> {
    const cached = this.entries.get(orgId);
    if (cached && cached.configVersion === configVersion) return cached;
    this.loads += 1;
    const [flags, rules] = await Promise.all([
      em.find(FeatureFlag, { orgId }),
      em.find(PolicyRule, { orgId, enabled: true }, { orderBy: { position: 'asc', createdAt: 'asc', id: 'asc' } }),
    ]);
    const config: OrgConfig = {
      configVersion,
      flags: new Map(flags.map((f) => [f.key, f.enabled])),
      rules: rules.map((r) => ({
        id: r.id,
        name: r.name,
        position: r.position,
        toolPattern: r.toolPattern,
        actionPattern: r.actionPattern,
        conditions: r.conditions,
        roles: r.roles,
        specialistId: r.specialistId,
        risk: r.risk,
        decision: r.decision,
      })),
    };
    // A slower load of an older version must not replace a newer one.
    const current = this.entries.get(orgId);
    if (!current || current.configVersion <= configVersion) this.entries.set(orgId, config);
    return config;
  }
}
