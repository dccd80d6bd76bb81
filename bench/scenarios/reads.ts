import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { execute, parse, validate, type DocumentNode } from 'graphql';
import { newOrg, newRun, TOOLS, type BenchOrg, type BenchServer } from '../lib/app';
import { GraphQLClient } from '../lib/http-client';
import { figure, measure, type BenchContext, type Figure, type Variant } from '../lib/measure';
import { GOALS, percent } from '../lib/goals';
import { createLoaders } from '../../src/app/loaders';
import { rawStatements } from '../../src/db/raw-transaction';
import type { RequestContext } from '../../src/graphql/context';
import { nextCallIds } from './gateway';

/**
 * 3. Reads: `runs(first: 50) { … toolCalls { … } }` of an org with 60 runs of 4 calls
 * each (3 succeeded, 1 blocked), so a page holds 50 runs and 200 calls. Over HTTP
 * (Express + Apollo + auth + resolvers + loaders), against graphql-js `execute()` of the
 * same schema with a context built as the server builds it (auth included, no HTTP), and
 * against hand-written batched SQL (auth, one page query, one tool-call query) that
 * assembles and serializes the same JSON.
 */
export const READS = `query Runs($first: Int!) {
  runs(first: $first) {
    edges {
      cursor
      node {
        id status specialistId correlationId pendingApprovalCount toolCostCents createdAt
        toolCalls { id toolName action status input output riskLevel errorCode errorText durationMs costCents createdAt }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}`;
export const PAGE = 50;
const RUNS = 60;

export interface ReadsEnv {
  server: BenchServer;
  pool: pg.Pool;
  org: BenchOrg;
}

/** An org holding the read dataset, written through the gateway itself. */
export async function buildReadsOrg(server: BenchServer): Promise<BenchOrg> {
  const org = await newOrg(server, 'Reads Org');
  const runIds: string[] = [];
  for (let i = 0; i < RUNS; i++) runIds.push(await newRun(server, org));
  const calls = [TOOLS[0], TOOLS[1], TOOLS[0], { toolName: 'amazon_query', action: 'get_order', params: { orderId: '902-3159896-1390916' } }];
  // Eight runs at a time, each run's calls in order.
  for (let i = 0; i < runIds.length; i += 8) {
    await Promise.all(
      runIds.slice(i, i + 8).map(async (runId) => {
        for (const call of calls) {
          await server.services.gateway.execute({ runId, ...call, ...nextCallIds(), caller: org.agent });
        }
      }),
    );
  }
  return org;
}

export interface RunsPage {
  runs: { edges: { cursor: string; node: { toolCalls: unknown[] } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

export function checkPage(data: RunsPage): void {
  const edges = data.runs.edges;
  if (edges.length !== PAGE) throw new Error(`expected ${PAGE} runs, got ${edges.length}`);
  const calls = edges.reduce((n, e) => n + e.node.toolCalls.length, 0);
  if (calls !== PAGE * 4) throw new Error(`expected ${PAGE * 4} tool calls, got ${calls}`);
}

/** graphql-js execute() with the server's context, without HTTP, Express or Apollo. */
export function bareGraphql(server: BenchServer, key: string) {
  const document: DocumentNode = parse(READS);
  const errors = validate(server.schema, document);
  if (errors.length) throw new Error(`READS does not validate: ${errors[0].message}`);
  const { orm, services } = server;
  return async (): Promise<string> => {
    const { caller } = await services.keys.authenticate(key);
    const em = orm.em.fork();
    const correlationId = randomUUID();
    const sql = rawStatements(orm);
    const contextValue: RequestContext = {
      em,
      sql,
      caller,
      loaders: createLoaders(em, sql, caller.orgId),
      correlationId,
      logger: services.logger.child({ correlationId }),
      services,
    };
    const result = await execute({ schema: server.schema, document, contextValue, variableValues: { first: PAGE } });
    if (result.errors?.length) throw result.errors[0];
    checkPage(result.data as unknown as RunsPage);
    return JSON.stringify(result);
  };
}

interface RunRow {
  id: string;
  status: string;
  specialist_id: string;
  correlation_id: string;
  pending_approval_count: number;
  tool_cost_cents: number;
  created_at: Date;
}
interface CallRow {
  id: string;
  run_id: string;
  tool_name: string;
  action: string;
  status: string;
  input_redacted: unknown;
  output_redacted: unknown;
  risk_level: string | null;
  error_code: string | null;
  error_text: string | null;
  duration_ms: number | null;
  cost_cents: number;
  created_at: Date;
}

/** The floor: the same answer from three hand-written statements. */
export function handSql(pool: pg.Pool, key: string) {
  const cursor = (row: RunRow) => Buffer.from(JSON.stringify([row.created_at.toISOString(), row.id]), 'utf8').toString('base64url');
  return async (): Promise<string> => {
    const hash = createHash('sha256').update(key, 'utf8').digest('hex');
    const keys = await pool.query<{ org_id: string }>('select * from api_keys where secret_hash = $1 and revoked_at is null limit 1', [hash]);
    if (!keys.rows[0]) throw new Error('unknown key');
    const orgId = keys.rows[0].org_id;
    const runs = await pool.query<RunRow>(
      `select id, status, specialist_id, correlation_id, pending_approval_count, tool_cost_cents, created_at
         from agent_runs where org_id = $1 order by created_at desc, id desc limit $2`,
      [orgId, PAGE + 1],
    );
    const page = runs.rows.slice(0, PAGE);
    const calls = await pool.query<CallRow>(
      `select id, run_id, tool_name, action, status, input_redacted, output_redacted, risk_level, error_code, error_text,
              duration_ms, cost_cents, created_at
         from tool_calls where org_id = $1 and run_id = any($2::uuid[]) order by created_at asc, id asc`,
      [orgId, page.map((r) => r.id)],
    );
    const byRun = new Map<string, object[]>();
    for (const c of calls.rows) {
      const list = byRun.get(c.run_id) ?? [];
      list.push({
        id: c.id,
        toolName: c.tool_name,
        action: c.action,
        status: c.status,
        input: c.input_redacted,
        output: c.output_redacted,
        riskLevel: c.risk_level,
        errorCode: c.error_code,
        errorText: c.error_text,
        durationMs: c.duration_ms,
        costCents: c.cost_cents,
        createdAt: c.created_at.toISOString(),
      });
      byRun.set(c.run_id, list);
    }
    const edges = page.map((r) => ({
      cursor: cursor(r),
      node: {
        id: r.id,
        status: r.status,
        specialistId: r.specialist_id,
        correlationId: r.correlation_id,
        pendingApprovalCount: r.pending_approval_count,
        toolCostCents: r.tool_cost_cents,
        createdAt: r.created_at.toISOString(),
        toolCalls: byRun.get(r.id) ?? [],
      },
    }));
    const data: RunsPage = {
      runs: { edges, pageInfo: { hasNextPage: runs.rows.length > PAGE, endCursor: edges[edges.length - 1]?.cursor ?? null } },
    };
    checkPage(data);
    return JSON.stringify({ data });
  };
}

export function readsVariants(env: ReadsEnv, client: GraphQLClient): Variant[] {
  const bare = bareGraphql(env.server, env.org.adminKey);
  const sql = handSql(env.pool, env.org.adminKey);
  return [
    { key: 'sql', label: 'hand-written batched SQL', op: async () => void (await sql()) },
    { key: 'bare', label: 'graphql-js execute()', op: async () => void (await bare()) },
    {
      key: 'http',
      label: 'runs query over HTTP',
      prepare: () => client.reset(),
      op: async () => checkPage(await client.request<RunsPage>(READS, { first: PAGE }, env.org.adminKey)),
    },
  ];
}

export async function readsScenario(ctx: BenchContext, env: ReadsEnv): Promise<Figure[]> {
  const figures: Figure[] = [];
  // The floor must answer what GraphQL answers, byte for byte.
  const [graphqlAnswer, sqlAnswer] = [await bareGraphql(env.server, env.org.adminKey)(), await handSql(env.pool, env.org.adminKey)()];
  if (graphqlAnswer === sqlAnswer) ctx.log(`reads: the hand-written SQL answers the same ${graphqlAnswer.length} bytes as graphql-js`);
  else ctx.log(`reads: WARNING: the hand-written SQL answer (${sqlAnswer.length} bytes) differs from graphql-js (${graphqlAnswer.length} bytes)`);
  for (const concurrency of [1, 8]) {
    ctx.log(`reads: ${concurrency} concurrent caller(s)`);
    const client = new GraphQLClient(env.server.url, concurrency);
    try {
      const m = await measure(ctx, 'reads', concurrency, readsVariants(env, client));
      const section = 'Reads — runs(first: 50) with toolCalls';
      const base = { section, concurrency, note: '50 runs, 200 tool calls per answer' };
      figures.push(
        figure({
          ...base,
          id: `reads.http-vs-bare.c${concurrency}`,
          name: 'over HTTP',
          subject: m.http,
          baselineName: 'graphql-js execute()',
          baseline: m.bare,
        }),
        figure(
          {
            ...base,
            id: `reads.http-vs-sql.c${concurrency}`,
            name: 'over HTTP',
            subject: m.http,
            baselineName: 'hand-written batched SQL',
            baseline: m.sql,
          },
          ({ ratio }) => [
            {
              label: `throughput ≥ ${percent(GOALS.readsHttpOfSql)} of hand-written SQL`,
              short: `≥${percent(GOALS.readsHttpOfSql)}`,
              pass: ratio >= GOALS.readsHttpOfSql,
            },
          ],
        ),
        figure({
          ...base,
          id: `reads.bare-vs-sql.c${concurrency}`,
          name: 'graphql-js execute()',
          subject: m.bare,
          baselineName: 'hand-written batched SQL',
          baseline: m.sql,
        }),
      );
    } finally {
      client.close();
    }
  }
  return figures;
}
