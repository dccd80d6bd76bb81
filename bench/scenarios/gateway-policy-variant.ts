import type { BenchOrg } from '../lib/app';
import { GraphQLClient } from '../lib/http-client';
import { figure, measure, type BenchContext, type Figure } from '../lib/measure';
import { callers, type GatewayEnv, gatewayVariants } from './gateway';

/** What sets one gateway variant apart: an org whose policy the decisions must ask, and the words of its figures. */
export interface PolicyVariant {
  /** The figures' id prefix and the progress line's label: `gateway-history`, `gateway-cedar`. */
  id: string;
  /** e.g. `20 history rules`. */
  what: string;
  section: string;
  note: string;
  /** The raw baseline's name (it sends the same statements without the policy). */
  rawBaseline: string;
}

/**
 * The gateway (in-process and over HTTP, 1 and 8 callers) in `org`, against raw pg sending the
 * same statements and against the demo org without rules, in the same rounds: what asking
 * the variant's policy costs per decision.
 */
export async function gatewayPolicyVariant(ctx: BenchContext, env: GatewayEnv, org: BenchOrg, variant: PolicyVariant): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const concurrency of [1, 8]) {
    ctx.log(`gateway, ${variant.what}: ${concurrency} concurrent caller(s)`);
    const set = await callers(env.server, () => org, concurrency);
    const plain = await callers(env.server, () => env.demo, concurrency);
    const client = new GraphQLClient(env.server.url, concurrency);
    try {
      const [raw, , inproc, http] = gatewayVariants(env, set, client);
      const [, , inprocPlain] = gatewayVariants(env, plain, client);
      const m = await measure(ctx, variant.id.replace('-', ' '), concurrency, [
        raw,
        { ...inprocPlain, key: 'plain', label: 'in-process, demo org without rules' },
        inproc,
        http,
      ]);
      for (const [key, name] of [
        ['inproc', `executeToolCall in-process, ${variant.what}`],
        ['http', `executeToolCall over HTTP, ${variant.what}`],
      ] as const) {
        const fields = { section: variant.section, name, concurrency, subject: m[key], note: variant.note };
        figures.push(
          figure({ ...fields, id: `${variant.id}.${key}.c${concurrency}`, baselineName: variant.rawBaseline, baseline: m.raw }),
          figure({
            ...fields,
            id: `${variant.id}.${key}.c${concurrency}.plain`,
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
