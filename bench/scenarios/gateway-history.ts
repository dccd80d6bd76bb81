import { upsertPolicyRule, type PolicyRuleInput } from '../../src/policy/policy-rule.service';
import type { HistoryCondition } from '../../src/policy/policy-history';
import { newOrg, TOOLS, type BenchOrg, type BenchServer } from '../lib/app';
import { GraphQLClient } from '../lib/http-client';
import { figure, measure, type BenchContext, type Figure } from '../lib/measure';
import { callers, type GatewayEnv, gatewayVariants } from './gateway';

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
  const figures: Figure[] = [];
  const org = await orgWithHistoryRules(env.server);
  for (const concurrency of [1, 8]) {
    ctx.log(`gateway, 20 history rules: ${concurrency} concurrent caller(s)`);
    const set = await callers(env.server, () => org, concurrency);
    const plain = await callers(env.server, () => env.demo, concurrency);
    const client = new GraphQLClient(env.server.url, concurrency);
    try {
      const [raw, , inproc, http] = gatewayVariants(env, set, client);
      const [, , inprocPlain] = gatewayVariants(env, plain, client);
      const m = await measure(ctx, 'gateway history', concurrency, [
        raw,
        { ...inprocPlain, key: 'plain', label: 'in-process, demo org without rules' },
        inproc,
        http,
      ]);
      const section = 'Gateway — 20 rules over history';
      const note = 'all callers in one org with 20 history rules on the tool (none reaches its limit)';
      for (const [key, name] of [
        ['inproc', 'executeToolCall in-process, 20 history rules'],
        ['http', 'executeToolCall over HTTP, 20 history rules'],
      ] as const) {
        const fields = { section, name, concurrency, subject: m[key], note };
        figures.push(
          figure({ ...fields, id: `gateway-history.${key}.c${concurrency}`, baselineName: 'raw pg, same statements (no history)', baseline: m.raw }),
          figure({
            ...fields,
            id: `gateway-history.${key}.c${concurrency}.plain`,
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
