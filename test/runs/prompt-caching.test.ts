import { useScriptedRuns } from './scripted-runs';
import { ScriptedModel, type ScriptedRequest } from '../support/scripted-model';
import { toolUseId, turn } from '../support/scripted-turn';
import { PromptCacheSimulator, uncachedUsage, type CacheUsage } from '../support/prompt-cache-sim';
import { graphql } from '../gql';
import type { RunClient } from './run-helpers';
import { scrape } from '../support/metrics-text';

/**
 * Issue 28, item 5: prompt caching. Every request marks the last tool, the system prompt and
 * the last message block (at most 4 breakpoints: the scripted model refuses more); the
 * scripted model answers with the usage the API would report for exactly those requests
 * (test/support/prompt-cache-sim.ts: Anthropic's documented accounting, 4 characters a
 * token), and the run records and prices it. The same requests priced without caching give
 * the "before" figure of docs/benchmarks.md.
 */
const model = new ScriptedModel();
const METRICS_TOKEN = 'prompt-cache-metrics-token-0123';
const scripted = useScriptedRuns(model, { RUN_MAX_TOOL_ROUNDS: '10', METRICS_TOKEN });
const demo = scripted.demo;
let runs: RunClient;
beforeAll(() => {
  runs = scripted.runs;
});

const RUN_COST = graphql(`
  query RunCacheCost($id: ID!) {
    run(id: $id) { status inputTokens outputTokens cacheCreationInputTokens cacheReadInputTokens llmCostUsd }
  }
`);

/** Default prices in micro-dollars per token: input 3, output 15; cache writes 125 %, reads 10 % of input. */
const turnCost = (u: CacheUsage, output: number) =>
  u.input_tokens * 3 + output * 15 + Math.round(((u.cache_creation_input_tokens * 125 + u.cache_read_input_tokens * 10) * 3) / 100);

/** Where a request's breakpoints are: tools by index, system blocks by index, message blocks as "m.b". */
function breakpoints(request: ScriptedRequest): string[] {
  const body = request.body as {
    tools: { cache_control?: unknown }[];
    system: string | { cache_control?: unknown }[];
    messages: { content: { cache_control?: unknown }[] }[];
  };
  return [
    ...body.tools.flatMap((t, i) => (t.cache_control ? [`tool ${i}`] : [])),
    ...(Array.isArray(body.system) ? body.system : []).flatMap((b, i) => (b.cache_control ? [`system ${i}`] : [])),
    ...body.messages.flatMap((m, i) => m.content.flatMap((b, j) => (b.cache_control ? [`message ${i}.${j}`] : []))),
  ];
}

const OUTPUT_TOKENS = 40;
const TURNS = 10;

test('a 10-turn run: 3 breakpoints per request where they belong; the cache usage reported is recorded and priced; caching costs far less input', async () => {
  const cache = new PromptCacheSimulator();
  const cached: CacheUsage[] = [];
  const uncached: CacheUsage[] = [];
  const answer = (last: boolean) => (request: ScriptedRequest) => {
    const usage = cache.usage(request.body);
    cached.push(usage);
    uncached.push(uncachedUsage(request.body));
    const t = turn({
      inputTokens: usage.input_tokens,
      cacheCreationInputTokens: usage.cache_creation_input_tokens,
      cacheReadInputTokens: usage.cache_read_input_tokens,
    });
    if (last) return t.text('Order #12345 shipped with UPS; tracking TRACK-001.').stop('end_turn', OUTPUT_TOKENS);
    return t
      .text('Let me check that order again.')
      .toolUse({ id: toolUseId(), name: 'order_lookup__lookup', input: { orderId: '12345' } })
      .stop('tool_use', OUTPUT_TOKENS);
  };
  for (let i = 0; i < TURNS; i++) model.script(answer(i === TURNS - 1));
  const { id } = await runs.start('Where is my order #12345? Please check it carefully, step by step.');
  const done = await runs.waitFor(id);
  expect(done.status).toBe('completed');
  expect(model.requests).toHaveLength(TURNS);

  for (const request of model.requests) {
    const tools = (request.body.tools as unknown[]).length;
    const last = request.messages.length - 1;
    expect(breakpoints(request)).toEqual([`tool ${tools - 1}`, 'system 0', `message ${last}.${request.messages[last].content.length - 1}`]);
  }

  const { run } = await runs.ok(RUN_COST, { id }, demo.seed.keys.admin);
  const sum = (key: keyof CacheUsage) => cached.reduce((n, u) => n + u[key], 0);
  expect(run).toMatchObject({
    inputTokens: sum('input_tokens'),
    cacheCreationInputTokens: sum('cache_creation_input_tokens'),
    cacheReadInputTokens: sum('cache_read_input_tokens'),
    outputTokens: TURNS * OUTPUT_TOKENS,
  });
  expect(run.cacheReadInputTokens).toBeGreaterThan(0);
  const { metrics } = await scrape(demo.app.metricsUrl, METRICS_TOKEN);
  expect(metrics.value('toolgate_model_tokens_total', { direction: 'cache_write' })).toBe(run.cacheCreationInputTokens);
  expect(metrics.value('toolgate_model_tokens_total', { direction: 'cache_read' })).toBe(run.cacheReadInputTokens);
  const micros = cached.reduce((n, u) => n + turnCost(u, OUTPUT_TOKENS), 0);
  expect(Math.round(run.llmCostUsd * 1_000_000)).toBe(micros);

  // Before (no breakpoints: every turn's input at full price) and after, input tokens only.
  const before = uncached.reduce((n, u) => n + turnCost(u, 0), 0);
  const after = cached.reduce((n, u) => n + turnCost(u, 0), 0);
  expect(cached.reduce((n, u) => n + u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens, 0)).toBe(
    uncached.reduce((n, u) => n + u.input_tokens, 0),
  );
  // docs/benchmarks.md ("Prompt caching") states this figure: measured 56,745 µ$ before, 20,902 µ$ after (0.37).
  expect(after / before).toBeGreaterThan(0.33);
  expect(after / before).toBeLessThan(0.41);
});

test('metadata.user_id: the same opaque id on every request of a run, another for another run, never its ids', async () => {
  model.script(
    turn()
      .toolUse({ id: toolUseId(), name: 'order_lookup__lookup', input: { orderId: '12345' } })
      .stop('tool_use'),
    turn().text('Shipped.').stop('end_turn'),
    turn().text('Hello.').stop('end_turn'),
  );
  const first = await runs.complete('Where is my order #12345?');
  const second = await runs.complete('Hi');
  const ids = model.requests.map((r) => (r.body.metadata as { user_id: string }).user_id);
  expect(ids[0]).toMatch(/^[0-9a-f]{32}$/);
  expect(ids[1]).toBe(ids[0]);
  expect(ids[2]).not.toBe(ids[0]);
  for (const id of ids) for (const raw of [first.id, second.id, demo.seed.orgId]) expect(raw.replaceAll('-', '')).not.toContain(id);
  expect(JSON.stringify(model.requests.map((r) => r.body.metadata))).not.toMatch(/@|[0-9a-f]{8}-[0-9a-f]{4}/);
});
