import { getOperationAST, parse, type GraphQLSchema } from 'graphql';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { post, runOverSocket, socket, textOf, type RawResponse, type SocketOutcome } from '../support/graphql-http';
import { RunsDocument, ToolCallDocument } from '../../gql/graphql';
import { PartnerRunsDocument } from '../../gql/partner/graphql';
import { buildToolgateSchema } from '../../src/api/schema';
import { LIST_SIZE_ESTIMATE, MAX_VALIDATION_ERRORS, MUTATION_COST, checkText, operationCost } from '../../src/api/limits';
import { loadConfig } from '../../src/config';

// Every limit refuses the operation before it runs, with a stable code, over HTTP and over
// graphql-ws alike. The defaults are the production ones (src/config/) unless a test says.
let app: TestApp;
let owner: TestOrg;
let schema: GraphQLSchema;
const sockets: { close: () => Promise<void> }[] = [];

beforeAll(async () => {
  app = await startTestApp({ GRAPHQL_MAX_BODY_BYTES: '16384' });
  owner = await newOrg(app.em(), 'Limits Org');
  schema = await buildToolgateSchema();
});
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((s) => s.close()));
});
afterAll(async () => app?.close());

const code = (res: RawResponse) => res.body.errors?.[0]?.extensions?.code;

// Documents are text here: over-deep, over-aliased, over-long or broken on purpose (typed ones where the manifest has them).
async function overHttp(query: string, variables?: Record<string, unknown>): Promise<RawResponse> {
  return post(app.url, { query, variables }, { key: owner.keys.admin });
}

async function overSocket(query: string, variables?: Record<string, unknown>): Promise<SocketOutcome> {
  const ws = socket(app.wsUrl, owner.keys.admin);
  sockets.push(ws);
  return runOverSocket(ws.client, { query, variables });
}

/** Refused on both transports with `expected`; the HTTP answer is a 400 without data. */
async function expectRefusedEverywhere(query: string, expected: string, variables?: Record<string, unknown>) {
  const http = await overHttp(query, variables);
  expect([http.status, code(http)]).toEqual([400, expected]);
  expect(http.body).not.toHaveProperty('data');
  const ws = await overSocket(query, variables);
  expect(ws.kind === 'error' && ws.errors[0].extensions.code).toBe(expected);
  return { http, ws };
}

async function expectAllowedEverywhere(query: string, variables?: Record<string, unknown>) {
  const http = await overHttp(query, variables);
  expect([http.status, http.body.errors]).toEqual([200, undefined]);
  const ws = await overSocket(query, variables);
  expect(ws.kind === 'result' && ws.result.errors).toBeUndefined();
}

/** Field nesting of `levels` levels: runs → edges → node → toolCalls → run → toolCalls → … */
function nested(levels: number): string {
  const path = ['runs(first: 1)', 'edges', 'node'];
  for (let i = 0; path.length < levels - 1; i++) path.push(i % 2 === 0 ? 'toolCalls' : 'run');
  return `{ ${path.join(' { ')} { id }${' }'.repeat(path.length - 1)} }`;
}

describe('depth (graphql-armor max-depth, default 8)', () => {
  test('8 levels run, 9 are QUERY_TOO_DEEP', async () => {
    await expectAllowedEverywhere(nested(8));
    const { http } = await expectRefusedEverywhere(nested(9), 'QUERY_TOO_DEEP');
    expect(http.body.errors![0].extensions).toMatchObject({ limit: 8 });
  });

  test('fragments count as the fields they hold (not as extra levels)', async () => {
    const query = `query { runs(first: 1) { ...Edges } }
      fragment Edges on AgentRunConnection { edges { node { ...Run } } }
      fragment Run on AgentRun { toolCalls { run { toolCalls { run { id } } } } }`;
    await expectAllowedEverywhere(query);
    const deeper = query.replace('run { id }', 'run { toolCalls { id } }');
    await expectRefusedEverywhere(deeper, 'QUERY_TOO_DEEP');
  });
});

describe('aliases (graphql-armor max-aliases, default 15, __typename included)', () => {
  const aliased = (n: number, field = 'role') => `{ viewer { ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} } }`;

  test('15 run, 16 are TOO_MANY_ALIASES', async () => {
    await expectAllowedEverywhere(aliased(15));
    await expectRefusedEverywhere(aliased(16), 'TOO_MANY_ALIASES');
  });

  test('aliases of __typename count too', async () => {
    await expectRefusedEverywhere(aliased(16, '__typename'), 'TOO_MANY_ALIASES');
    await expectRefusedEverywhere(`{ ${Array.from({ length: 16 }, (_, i) => `t${i}: __typename`).join(' ')} }`, 'TOO_MANY_ALIASES');
  });

  test('aliases inside fragments count each time the fragment is spread', async () => {
    const fragment = `fragment F on Viewer { ${Array.from({ length: 6 }, (_, i) => `r${i}: role`).join(' ')} }`;
    await expectAllowedEverywhere(`{ viewer { ...F } a: viewer { ...F } } ${fragment}`);
    await expectRefusedEverywhere(`{ viewer { ...F } a: viewer { ...F } b: viewer { ...F } } ${fragment}`, 'TOO_MANY_ALIASES');
  });
});

describe('directives (graphql-armor max-directives, default 10)', () => {
  const directed = (n: number) => `{ viewer { ${'role @include(if: true) '.repeat(n)}} }`;

  test('10 run, 11 are TOO_MANY_DIRECTIVES', async () => {
    await expectAllowedEverywhere(directed(10));
    await expectRefusedEverywhere(directed(11), 'TOO_MANY_DIRECTIVES');
  });

  test("graphql-cop's Directive Overloading probe is one error, before parsing and validation", async () => {
    // Ten duplicated unknown directives flag a server that answers ten errors.
    const ten = await expectRefusedEverywhere(`query cop { __typename ${'@aa'.repeat(10)} }`, 'BAD_USER_INPUT');
    expect(ten.http.body.errors).toHaveLength(1);
    expect(ten.http.body.errors![0].message).toBe('Unknown directive "@aa"; operations may use @include, @skip');
    expect(ten.ws.kind === 'error' && ten.ws.errors).toHaveLength(1);
    // Counted known or unknown: a hundred are over the limit.
    const hundred = await expectRefusedEverywhere(`query cop { __typename ${'@aa'.repeat(100)} }`, 'TOO_MANY_DIRECTIVES');
    expect(hundred.http.body.errors).toHaveLength(1);
  });

  test('validation still reports at most MAX_VALIDATION_ERRORS errors and one "too many"', async () => {
    const { http, ws } = await expectRefusedEverywhere(`{ ${Array.from({ length: 9 }, (_, i) => `f${i}`).join(' ')} }`, 'GRAPHQL_VALIDATION_FAILED');
    expect(http.body.errors).toHaveLength(MAX_VALIDATION_ERRORS + 1);
    expect(http.body.errors!.at(-1)!.message).toMatch(/Too many validation errors/);
    expect(ws.kind === 'error' && ws.errors).toHaveLength(MAX_VALIDATION_ERRORS + 1);
  });
});

describe('tokens (default 1000), counted before parsing', () => {
  test('a long query is TOO_MANY_TOKENS', async () => {
    await expectRefusedEverywhere(`{ viewer { ${'role '.repeat(1000)} } }`, 'TOO_MANY_TOKENS');
  });

  test('even when it would not parse', async () => {
    await expectRefusedEverywhere(`{ viewer { ${'role '.repeat(1000)}`, 'TOO_MANY_TOKENS');
    await expectRefusedEverywhere(`{ ${'@'.repeat(1200)} }`, 'TOO_MANY_TOKENS');
  });

  test('comments are not tokens; short broken text is a parse error', async () => {
    await expectAllowedEverywhere(`# ${'x '.repeat(2000)}\n{ viewer { role } }`);
    const broken = await overHttp('{ viewer { ');
    expect([broken.status, code(broken)]).toEqual([400, 'GRAPHQL_PARSE_FAILED']);
  });

  test('checkText counts like the parser', () => {
    const limits = { maxTokens: 5, maxDirectives: 10, maxAliases: 15 };
    const known = new Set(['include', 'skip']);
    expect(() => checkText('{ a b c }', limits, known)).not.toThrow();
    expect(() => checkText('{ a b c d }', limits, known)).toThrow(expect.objectContaining({ code: 'TOO_MANY_TOKENS', details: { limit: 5 } }));
  });

  test('checkText tells aliases from arguments, variables and object fields (only names and colons outside parentheses)', () => {
    const limits = { maxTokens: 1000, maxDirectives: 10, maxAliases: 1 };
    const known = new Set(['include', 'skip']);
    const withArguments = 'query($a: Int, $b: RunFilter = { status: queued }) { x: runs(first: $a, filter: { status: running }) { totalCount } }';
    expect(() => checkText(withArguments, limits, known)).not.toThrow();
    expect(() => checkText('{ x: viewer { y: role } }', limits, known)).toThrow(
      expect.objectContaining({ code: 'TOO_MANY_ALIASES', details: { limit: 1 } }),
    );
  });
});

describe('cost (default 5000; list sizes from first)', () => {
  const fanOut = 'query($first: Int) { runs(first: $first) { edges { node { toolCalls { run { toolCalls { id } } } } } } }';

  test('the cost of a page grows with first, from the variables', async () => {
    await expectAllowedEverywhere(fanOut, { first: 10 });
    const { http } = await expectRefusedEverywhere(fanOut, 'QUERY_TOO_COSTLY', { first: 100 });
    // runs 1 + edges 100 × (1 + node 1 + toolCalls 10 × (1 + run 1 + toolCalls 10 × 1))
    expect(http.body.errors![0].extensions).toMatchObject({ cost: 1 + 100 * (2 + 10 * (2 + 10)), limit: 5000 });
  });

  test('a literal first and the argument default count too', async () => {
    await expectRefusedEverywhere(fanOut.replace('first: $first', 'first: 100').replace('($first: Int)', ''), 'QUERY_TOO_COSTLY');
    // Default 20: 1 + 20 × 122 = 2441, allowed.
    await expectAllowedEverywhere(fanOut.replace('(first: $first)', '').replace('($first: Int)', ''));
  });

  test('first above 100 is still BAD_USER_INPUT from the resolver, costed as 100', async () => {
    const res = await overHttp('query($first: Int) { runs(first: $first) { totalCount } }', { first: 101 });
    expect([res.status, code(res), res.body.data]).toEqual([200, 'BAD_USER_INPUT', null]);
  });

  test('operationCost: connections, nested lists, fragments, mutations', () => {
    const cost = (query: string, variables: Record<string, unknown> = {}) => {
      const document = parse(query);
      return operationCost(schema, document, getOperationAST(document)!, variables);
    };
    // runs 1 + pageInfo 1 + edges first × (1 + node 1 + toolCalls 10 × 1)
    expect(cost(textOf(RunsDocument), { first: 100 })).toBe(1 + 1 + 100 * (2 + LIST_SIZE_ESTIMATE));
    expect(cost(textOf(RunsDocument), {})).toBe(1 + 1 + 20 * (2 + LIST_SIZE_ESTIMATE));
    expect(cost(textOf(RunsDocument), { first: 1000 })).toBe(1 + 1 + 100 * (2 + LIST_SIZE_ESTIMATE));
    expect(cost(textOf(PartnerRunsDocument), {})).toBe(1 + 1 + 20 * 2); // operation default first: 20
    expect(cost(textOf(ToolCallDocument), { id: 'x' })).toBe(3); // toolCall, policyDecision, approvalRequest
    expect(cost('{ __typename viewer { role } }')).toBe(1);
    expect(cost('{ __schema { types { name fields { name } } } }')).toBe(0);
    expect(cost('{ ...Q } fragment Q on Query { runs(first: 5) { edges { node { id } } } }')).toBe(1 + 5 * 2);
    expect(cost('mutation { setFeatureFlag(key: "k", enabled: true) { key } }')).toBe(1 + MUTATION_COST);
    // A batch mutation is one mutation per item, and its result list is as long as its ids.
    const bulk = 'mutation($ids: [ID!]!) { resolveApprovals(ids: $ids, decision: APPROVE) { approvalId error { code } } }';
    expect(cost(bulk, { ids: ['a', 'b', 'c'] })).toBe(3 * 2 + 3 * MUTATION_COST);
    expect(cost('mutation { resolveApprovals(ids: ["a", "b"], decision: REJECT) { approvalId } }')).toBe(2 * 1 + 2 * MUTATION_COST);
  });

  test('a fragment bomb (each fragment spreads the next twice) is costed in linear time and refused', async () => {
    const levels = 30;
    const page = 'runs(first: 2) { edges { node { id } } }';
    const fragments = Array.from({ length: levels }, (_, i) =>
      i === levels - 1 ? `fragment F${i} on Query { ${page} }` : `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} ${page} }`,
    ).join(' ');
    // Exponential costing would not finish: the test's timeout is the bound, not a clock.
    const { http } = await expectRefusedEverywhere(`{ ...F0 } ${fragments}`, 'QUERY_TOO_COSTLY');
    expect(http.body.errors![0].extensions!.cost).toBe((2 ** levels - 1) * 5);
  }, 20_000);
});

describe('body size and batching', () => {
  test('a body above the limit is 413 PAYLOAD_TOO_LARGE; a socket message above it closes with 1009', async () => {
    const res = await overHttp('query($pad: String) { viewer { role } }', { pad: 'x'.repeat(17_000) });
    expect([res.status, code(res)]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const ws = await overSocket('query($pad: String) { viewer { role } }', { pad: 'x'.repeat(17_000) });
    expect(ws).toMatchObject({ kind: 'closed', code: 1009 });
  });

  test('a batched (array) body is 400 BATCHING_NOT_SUPPORTED; an array payload closes the socket with 4400', async () => {
    const res = await post(app.url, [{ query: '{ viewer { role } }' }, { query: '{ viewer { role } }' }], { key: owner.keys.admin });
    expect([res.status, code(res)]).toEqual([400, 'BATCHING_NOT_SUPPORTED']);
    expect(res.body).not.toHaveProperty('data');

    const ws = socket(app.wsUrl, owner.keys.admin);
    sockets.push(ws);
    await runOverSocket(ws.client, { query: '{ viewer { role } }' }); // connected and acknowledged
    const raw = await rawSocketBatch();
    expect(raw).toBe(4400);
  });
});

/** Sends a subscribe message whose payload is an array, as a batching client would. */
async function rawSocketBatch(): Promise<number> {
  const { default: WebSocket } = await import('ws');
  return new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(app.wsUrl, 'graphql-transport-ws');
    const timer = setTimeout(() => reject(new Error('no close')), 5000);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${owner.keys.admin}` } })));
    ws.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'connection_ack') {
        ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: [{ query: '{ viewer { role } }' }, { query: '{ viewer { role } }' }] }));
      }
    });
    ws.on('close', (closeCode) => {
      clearTimeout(timer);
      resolve(closeCode);
    });
  });
}

describe('configuration', () => {
  test('defaults and overrides', () => {
    const defaults = loadConfig({}).api;
    expect(defaults).toMatchObject({
      maxDepth: 8,
      maxAliases: 15,
      maxDirectives: 10,
      maxTokens: 1000,
      maxCost: 5000,
      maxBodyBytes: 1_048_576,
      trustedDocumentRoles: ['partner'],
      introspection: true,
      fieldSuggestions: true,
    });
    const tuned = loadConfig({ GRAPHQL_MAX_DEPTH: '12', GRAPHQL_MAX_COST: '900', TRUSTED_DOCUMENT_ROLES: 'partner,agent' }).api;
    expect(tuned).toMatchObject({ maxDepth: 12, maxCost: 900, trustedDocumentRoles: ['partner', 'agent'] });
    expect(loadConfig({ TRUSTED_DOCUMENT_ROLES: 'none' }).api.trustedDocumentRoles).toEqual([]);
    expect(() => loadConfig({ TRUSTED_DOCUMENT_ROLES: 'partner,root' })).toThrow(/TRUSTED_DOCUMENT_ROLES/);
    expect(() => loadConfig({ GRAPHQL_MAX_DEPTH: '0' })).toThrow(/GRAPHQL_MAX_DEPTH/);
  });
});
