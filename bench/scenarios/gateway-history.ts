import { upsertPolicyRule, type PolicyRuleInput } from '../../src/policy/policy-rule.service';
import type { HistoryCondition } from '../../src/policy/policy-history';
import { newOrg, TOOLS, type BenchOrg, type BenchServer } from '../lib/app';
import type { BenchContext, Figure } from '../lib/measure';
import type { GatewayEnv } from './gateway';
import { gatewayPolicyVariant } from './gateway-policy-variant';

/**
 * 1b. Gateway with 20 rules over history (docs/policy.md) active on the called tool: every
 * decision answers 20 history conditions in its one extra statement, under the limits'
 * advisory locks. No limit is ever reached (every call still succeeds), so the figure is the
 * cost of asking. The rules: 8 counts per run (4 over the whole run, 4 over 10 minutes), 6
 * sums per customer (the order id as the customer, 24 h), 6 counts per org (1 minute). The
 * per-org and per-customer ones make every caller of the org take turns from the history
 * read to the commit; their reads grow with the calls of the window.
 */
const TOOL = TOOLS[0];

function historyRules(): PolicyRuleInput[] {
  const conditions: Partial<HistoryCondition>[] = [
    ...Array.from({ length: 8 }, (_, i) => ({
      kind: 'count' as const,
      tool: TOOL.toolName,
      scope: 'run' as const,
      windowSeconds: i < 4 ? null : 600,
      limit: 1e9 + i,
    })),
    ...Array.from({ length: 6 }, (_, i) => ({
      kind: 'sum' as const,
      tool: TOOL.toolName,
      scope: 'customer' as const,
      customerPath: 'orderId',
      paramPath: 'orderId',
      windowSeconds: 86_400,
      limit: 1e12 - i,
    })),
    ...Array.from({ length: 6 }, (_, i) => ({
      kind: 'count' as const,
      tool: TOOL.toolName,
      action: TOOL.action,
      scope: 'org' as const,
      windowSeconds: 60,
      limit: 1e9 + i,
    })),
  ];
  return conditions.map((history, i) => ({
    name: `history rule ${i + 1}`,
    position: i + 1,
    toolPattern: TOOL.toolName,
    actionPattern: '*',
    conditions: [],
    history: [history],
    roles: [],
    risk: 'high',
    decision: 'block',
    enabled: true,
  }));
}

async function orgWithHistoryRules(server: BenchServer): Promise<BenchOrg> {
  const org = await newOrg(server, 'Bench History Org');
  const admin = (await server.services.keys.authenticate(org.adminKey)).caller;
  for (const rule of historyRules()) await upsertPolicyRule(server.em(), admin, rule);
  return org;
}

export async function gatewayHistoryScenario(ctx: BenchContext, env: GatewayEnv): Promise<Figure[]> {
  return gatewayPolicyVariant(ctx, env, await orgWithHistoryRules(env.server), {
    id: 'gateway-history',
    what: '20 history rules',
    section: 'Gateway — 20 rules over history',
    note: 'all callers in one org with 20 history rules on the tool (none reaches its limit)',
    rawBaseline: 'raw pg, same statements (no history)',
  });
}
