import { startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import { documentId, post, textOf, type RawResponse } from '../support/graphql-http';
import { RunsDocument, ToolCallDocument } from '../../gql/graphql';
import { COMPILE_AFTER } from '../../src/api/http/compiled-reads';

// graphql-jit as the app loads it, its compiled queries counted (the real compiler runs).
const compiledRuns = new Map<string, number>();
jest.mock('graphql-jit', () => {
  const actual = jest.requireActual('graphql-jit');
  return {
    ...actual,
    compileQuery: (...args: Parameters<typeof actual.compileQuery>) => {
      const compiled = actual.compileQuery(...args);
      if (!actual.isCompiledQuery(compiled)) return compiled;
      const name = String(args[2] ?? 'anonymous');
      const query = compiled.query;
      compiled.query = (...queryArgs: unknown[]) => {
        compiledRuns.set(name, (compiledRuns.get(name) ?? 0) + 1);
        return query(...queryArgs);
      };
      return compiled;
    },
  };
});

/**
 * Compiled reads (src/api/http/compiled-reads.ts): a read query Apollo has parsed
 * COMPILE_AFTER times runs compiled, and answers byte for byte what graphql-js answered;
 * errors, refused variables and what graphql-jit reads differently stay graphql-js's.
 */
let app: TestApp;
let owner: TestOrg;
let runId: string;
let callId: string;

beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em(), 'Compiled Reads Org');
  for (let i = 0; i < 3; i++) {
    const run = await newRun(app.em(), owner, { createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)) });
    runId = run.id;
    for (let j = 0; j < 2; j++) callId = (await newToolCall(app.em(), owner, run, { input: { orderId: `#${i}${j}`, note: 'ü "quoted"' } })).call.id;
  }
});
afterAll(async () => app?.close());
beforeEach(() => compiledRuns.clear());

const RUNS_WITH_CALLS = `query RunsWithCalls($first: Int!, $withCalls: Boolean!) {
  runs(first: $first) {
    edges {
      cursor
      node {
        id status specialistId correlationId pendingApprovalCount toolCostCents createdAt llmCostUsd allowedTools
        toolCalls @include(if: $withCalls) { id toolName action status input output riskLevel errorCode errorText durationMs costCents createdAt }
        specialist { id name }
      }
    }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;

/** The same request `times` times, as raw answers. */
async function repeat(times: number, body: Record<string, unknown>, key = owner.keys.admin): Promise<RawResponse[]> {
  const answers: RawResponse[] = [];
  for (let i = 0; i < times; i++) answers.push(await post(app.url, body, { key }));
  return answers;
}

function expectAllAlike(answers: RawResponse[]): void {
  for (const answer of answers) expect([answer.status, answer.text]).toEqual([answers[0].status, answers[0].text]);
}

test('a hot read runs compiled and answers byte for byte what graphql-js answered', async () => {
  const times = COMPILE_AFTER + 2;
  const answers = await repeat(times, { query: RUNS_WITH_CALLS, variables: { first: 2, withCalls: true } });
  expect(answers[0].body.errors).toBeUndefined();
  expect(answers[0].body.data?.runs.edges[0].node.toolCalls).toHaveLength(2);
  expectAllAlike(answers);
  expect(compiledRuns.get('RunsWithCalls')).toBe(times - COMPILE_AFTER + 1);

  // Other variables of the same document: @include off, another page size.
  const without = await post(app.url, { query: RUNS_WITH_CALLS, variables: { first: 3, withCalls: false } }, { key: owner.keys.admin });
  expect(without.body.data?.runs.edges).toHaveLength(3);
  expect(without.body.data?.runs.edges[0].node).not.toHaveProperty('toolCalls');
  expect(compiledRuns.get('RunsWithCalls')).toBe(times - COMPILE_AFTER + 2);
});

test('first-party persisted documents by id run compiled too, with the same answers', async () => {
  const answers = await repeat(COMPILE_AFTER + 1, { documentId: documentId(ToolCallDocument), variables: { id: callId } });
  expect(answers[0].body.data?.toolCall.id).toBe(callId);
  expectAllAlike(answers);
  expect(compiledRuns.get('ToolCall')).toBe(2);
});

test('a compiled run with an error answers as graphql-js does; a document that fails more than it answers goes back to graphql-js', async () => {
  const missing = '00000000-0000-4000-8000-000000000000';
  const found = () => post(app.url, { query: RUN_BY_ID, variables: { id: runId } }, { key: owner.keys.admin });
  const notFound = (times: number) => repeat(times, { query: RUN_BY_ID, variables: { id: missing } });
  const first = await found();
  for (let i = 1; i < COMPILE_AFTER; i++) expectAllAlike([first, await found()]);
  expect(compiledRuns.get('RunById')).toBe(1); // answered compiled
  const errors = await notFound(COMPILE_AFTER - 1);
  expect(errors[0].body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  expectAllAlike(errors);
  expect(compiledRuns.get('RunById')).toBe(COMPILE_AFTER); // failed compiled, answered by graphql-js
  expectAllAlike([first, await found()]);
  expect(compiledRuns.get('RunById')).toBe(COMPILE_AFTER + 1); // still compiled: 2 answers, 2 failures
  expectAllAlike([...errors, ...(await notFound(COMPILE_AFTER))]);
  // The next failure is the third (COMPILE_AFTER), more than the 2 answers: off, and the rest run on graphql-js only.
  expect(compiledRuns.get('RunById')).toBe(COMPILE_AFTER + 2);
  expectAllAlike([first, await found()]);
  expect(compiledRuns.get('RunById')).toBe(COMPILE_AFTER + 2);
});
const RUN_BY_ID = 'query RunById($id: ID!) { run(id: $id) { id status toolCalls { id status } } }';

test("a field graphql-jit reads differently (a connection's lazy totalCount) leaves the document to graphql-js for good", async () => {
  const answers = await repeat(COMPILE_AFTER + 3, { query: textOf(RunsDocument), variables: { first: 2 } });
  expect(answers[0].body.errors).toBeUndefined();
  expect(answers[0].body.data?.runs.totalCount).toBe(3);
  expectAllAlike(answers);
  expect(compiledRuns.get('Runs')).toBe(1);
});

test('variables graphql-js refuses are refused by graphql-js, never run compiled', async () => {
  await repeat(COMPILE_AFTER, { query: RUNS_WITH_CALLS, variables: { first: 1, withCalls: false } });
  compiledRuns.clear();
  const answers = await repeat(2, { query: RUNS_WITH_CALLS, variables: { first: 'two', withCalls: false } });
  expect([answers[0].status, answers[0].body.errors?.[0].extensions?.code]).toEqual([400, 'BAD_USER_INPUT']);
  expectAllAlike(answers);
  expect(compiledRuns.size).toBe(0);
});

test('mutations, reads that write or cost much, and documents of several operations are never compiled', async () => {
  const documents = [
    { query: 'query Verify { verifyLedger { eventsChecked } }' },
    { query: 'query Two { viewer { role } } query Other { viewer { apiKeyId } }', operationName: 'Two' },
    { query: 'mutation Flag { setFeatureFlag(key: "tool_calling_enabled", enabled: true) { key } }' },
  ];
  for (const body of documents) await repeat(COMPILE_AFTER + 1, body);
  expect(compiledRuns.size).toBe(0);
});
