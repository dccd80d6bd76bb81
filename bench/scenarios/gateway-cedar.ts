import { upsertCedarPolicy } from '../../src/policy/cedar-policy.service';
import { newOrg, TOOLS, type BenchOrg, type BenchServer } from '../lib/app';
import type { BenchContext, Figure } from '../lib/measure';
import type { GatewayEnv } from './gateway';
import { gatewayPolicyVariant } from './gateway-policy-variant';

/**
 * 1c. Gateway with 20 Cedar policies (docs/policy.md, "Cedar") on the called tool, 10 forbids
 * and 10 permits with an @outcome, each reading the call's params; none matches (every call
 * still succeeds, the catalog's default decides), so the figure is the cost of asking Cedar
 * on every decision: the params as Cedar values and one authorization of the org's
 * preparsed policy set. No statement is added.
 */
const TOOL = TOOLS[0];
const ACTION = `Toolgate::Action::"${TOOL.toolName}.${TOOL.action}"`;

function cedarPolicies(): { name: string; position: number; text: string; enabled: boolean }[] {
  return Array.from({ length: 20 }, (_, i) => ({
    name: `cedar policy ${i + 1}`,
    position: i + 1,
    enabled: true,
    text:
      i % 2 === 0
        ? `forbid (principal, action == ${ACTION}, resource) when { context.params.orderId == "never-${i}" };`
        : `@outcome("require_expert_approval") @risk("high") permit (principal in Toolgate::Role::"agent", action == ${ACTION}, resource) when { context.params.orderId like "never-${i}*" };`,
  }));
}

async function orgWithCedarPolicies(server: BenchServer): Promise<BenchOrg> {
  const org = await newOrg(server, 'Bench Cedar Org');
  const admin = (await server.services.keys.authenticate(org.adminKey)).caller;
  for (const policy of cedarPolicies()) await upsertCedarPolicy(server.em(), admin, policy);
  return org;
}

export async function gatewayCedarScenario(ctx: BenchContext, env: GatewayEnv): Promise<Figure[]> {
  return gatewayPolicyVariant(ctx, env, await orgWithCedarPolicies(env.server), {
    id: 'gateway-cedar',
    what: '20 Cedar policies',
    section: 'Gateway — 20 Cedar policies',
    note: 'all callers in one org with 20 Cedar policies on the tool (none matches)',
    rawBaseline: 'raw pg, same statements (no policy)',
  });
}
