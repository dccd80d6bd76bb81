import { upsertCedarPolicy } from '../../src/policy/cedar-policy.service';
import { newOrg, TOOLS, type BenchOrg, type BenchServer } from '../lib/app';
import { GraphQLClient } from '../lib/http-client';
import { figure, measure, type BenchContext, type Figure } from '../lib/measure';
import { callers, type GatewayEnv, gatewayVariants } from './gateway';

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
  const figures: Figure[] = [];
  const org = await orgWithCedarPolicies(env.server);
  for (const concurrency of [1, 8]) {
    ctx.log(`gateway, 20 Cedar policies: ${concurrency} concurrent caller(s)`);
    const set = await callers(env.server, () => org, concurrency);
    const plain = await callers(env.server, () => env.demo, concurrency);
    const client = new GraphQLClient(env.server.url, concurrency);
    try {
      const [raw, , inproc, http] = gatewayVariants(env, set, client);
      const [, , inprocPlain] = gatewayVariants(env, plain, client);
      const m = await measure(ctx, 'gateway cedar', concurrency, [
        raw,
        { ...inprocPlain, key: 'plain', label: 'in-process, demo org without rules' },
        inproc,
        http,
      ]);
      const section = 'Gateway — 20 Cedar policies';
      const note = 'all callers in one org with 20 Cedar policies on the tool (none matches)';
      for (const [key, name] of [
        ['inproc', 'executeToolCall in-process, 20 Cedar policies'],
        ['http', 'executeToolCall over HTTP, 20 Cedar policies'],
      ] as const) {
        const fields = { section, name, concurrency, subject: m[key], note };
        figures.push(
          figure({ ...fields, id: `gateway-cedar.${key}.c${concurrency}`, baselineName: 'raw pg, same statements (no policy)', baseline: m.raw }),
          figure({
            ...fields,
            id: `gateway-cedar.${key}.c${concurrency}.plain`,
            baselineName: 'in-process, one org without rules',
            baseline: m.plain,
          }),
        );
      }
    } finally {
      client.close();
    }
  }
  return figures;
}
