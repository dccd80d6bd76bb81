import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { newRun, TOOLS, type BenchOrg, type BenchServer } from '../lib/app';
import { GraphQLClient } from '../lib/http-client';
import { rawToolCall, type Notifier } from '../lib/raw-tool-call';
import { floorToolCall } from '../lib/floor-tool-call';
import { figure, gatewayFloorGoals, gatewayGoals, measure, type BenchContext, type Figure, type Variant } from '../lib/measure';
import type { ToolCallOutcome } from '../../src/gateway/gateway.types';

/**
 * 1. Gateway: one allowed call that succeeds against the instant vendor, through
 * ToolGateway.execute in-process and through the executeToolCall mutation over HTTP,
 * against raw `pg` sending the same statements in the same two transactions. Each caller
 * drives its own external run. "One org": every caller is an agent of the demo org, so
 * all ledger appends queue on that org's advisory lock. "Spread": each caller in an org of
 * its own, which shows what the lock costs.
 */
export const EXECUTE = `mutation Execute($input: ExecuteToolCallInput!) {
  executeToolCall(input: $input) { status toolCallId result error { code message } approvalRequestId replayed }
}`;

export interface GatewayEnv {
  server: BenchServer;
  pool: pg.Pool;
  notifier: Notifier;
  demo: BenchOrg;
  spread: BenchOrg[];
}

const PREFIX = randomBytes(4).toString('hex');
let sequence = 0;
/** Unique per call: the correlation id and the model's tool_use id. */
export function nextCallIds(): { correlationId: string; toolUseId: string } {
  const id = `${PREFIX}_${(sequence++).toString(36)}`;
  return { correlationId: `bench-${id}`, toolUseId: `toolu_${id}` };
}

const TOOL = TOOLS[0];

export interface CallerSet {
  orgs: BenchOrg[];
  runIds: string[];
}

export async function callers(server: BenchServer, orgFor: (caller: number) => BenchOrg, count: number): Promise<CallerSet> {
  const orgs = Array.from({ length: count }, (_, i) => orgFor(i));
  const runIds: string[] = [];
  for (const org of orgs) runIds.push(await newRun(server, org));
  return { orgs, runIds };
}

/** The three variants on a set of callers (caller i: org i, run i). */
export function gatewayVariants(env: GatewayEnv, set: CallerSet, client: GraphQLClient): Variant[] {
  const { server, pool } = env;
  return [
    {
      key: 'raw',
      label: 'raw pg (same statements)',
      op: (i) =>
        rawToolCall(
          pool,
          { orgId: set.orgs[i].orgId, runId: set.runIds[i], caller: set.orgs[i].agent, ...TOOL, ...nextCallIds(), policyVersion: 1 },
          { reads: true, notifier: env.notifier },
        ),
    },
    {
      key: 'floor',
      label: 'minimal floor (one round trip per transaction)',
      op: (i) =>
        floorToolCall(pool, {
          orgId: set.orgs[i].orgId,
          runId: set.runIds[i],
          caller: set.orgs[i].agent,
          ...TOOL,
          ...nextCallIds(),
          policyVersion: 1,
        }),
    },
    {
      key: 'inproc',
      label: 'executeToolCall in-process',
      op: async (i) => {
        const out = await server.services.gateway.execute({
          runId: set.runIds[i],
          toolName: TOOL.toolName,
          action: TOOL.action,
          params: TOOL.params,
          ...nextCallIds(),
          caller: set.orgs[i].agent,
        });
        expectSucceeded(out);
      },
    },
    {
      key: 'http',
      label: 'executeToolCall over HTTP',
      prepare: () => client.reset(),
      op: async (i) => {
        const data = await client.request<{ executeToolCall: ToolCallOutcome }>(
          EXECUTE,
          { input: { runId: set.runIds[i], toolName: TOOL.toolName, action: TOOL.action, params: TOOL.params, ...nextCallIds() } },
          set.orgs[i].agentKey,
        );
        expectSucceeded(data.executeToolCall);
      },
    },
  ];
}

function expectSucceeded(out: ToolCallOutcome): void {
  if (out.status !== 'succeeded') throw new Error(`call ${out.status}: ${out.error?.code ?? ''}`);
}

export async function gatewayScenario(ctx: BenchContext, env: GatewayEnv): Promise<Figure[]> {
  const figures: Figure[] = [];
  const modes = [
    { spread: false, levels: [1, 8, 32] },
    { spread: true, levels: [8, 32] },
  ];
  for (const mode of modes) {
    for (const concurrency of mode.levels) {
      const title = mode.spread ? 'gateway, 1 org per caller' : 'gateway, 1 org';
      ctx.log(`${title}: ${concurrency} concurrent caller(s)`);
      const set = await callers(env.server, (i) => (mode.spread ? env.spread[i % env.spread.length] : env.demo), concurrency);
      const client = new GraphQLClient(env.server.url, concurrency);
      try {
        const m = await measure(ctx, mode.spread ? 'gateway spread' : 'gateway', concurrency, gatewayVariants(env, set, client));
        const where = mode.spread ? `each caller in its own org (${concurrency} orgs)` : 'all callers in one org';
        const suffix = mode.spread ? '.spread' : '';
        for (const [key, name] of [
          ['inproc', 'executeToolCall in-process'],
          ['http', 'executeToolCall over HTTP'],
        ] as const) {
          const section = mode.spread ? 'Gateway — callers spread over orgs' : 'Gateway — one org';
          const id = `gateway.${key}.c${concurrency}${suffix}`;
          const fields = { section, name, concurrency, subject: m[key], note: where };
          figures.push(
            figure({ ...fields, id, baselineName: 'raw pg, same statements', baseline: m.raw }, (f) => gatewayGoals(key, f)),
            figure({ ...fields, id: `${id}.floor`, baselineName: 'minimal floor', baseline: m.floor }, (f) => gatewayFloorGoals(key, f)),
          );
        }
      } finally {
        client.close();
      }
    }
  }
  return figures;
}
