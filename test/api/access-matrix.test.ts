import fs from 'node:fs';
import path from 'node:path';
import { errorCode, startTestApp, type TestApp } from '../support/app';
import { newOrg, newRun, newToolCall, type TestOrg } from '../support/factories';
import { runOverSocket, socket } from '../support/graphql-http';
import { NIL_ID as NIL, fieldAt as fieldOf, rootFields, rootOperation, selectionOf as selection } from '../support/schema-documents';
import { ACCESS_MATRIX, mayUse } from '../../src/auth/access';
import { ROLES } from '../../src/auth/roles';
import { ACCESS_TABLE_END, ACCESS_TABLE_START, renderAccessTable } from '../../src/auth/access-table';
import { fieldFacts, unguardedRestrictions, type FieldFacts } from '../support/simple-resolvers';

/**
 * The access matrix (src/auth/access.ts) is the one statement of who may do what. This
 * suite derives its cases from it and from the committed schema: every root field of the
 * schema is in the matrix, every coordinate of the matrix exists, and every operation,
 * tried with every role, is refused with FORBIDDEN exactly when the matrix says so. The
 * README's role table is the matrix rendered.
 */
const coordinates = Object.keys(ACCESS_MATRIX);
const graphqlCoordinates = coordinates.filter((c) => !c.startsWith('MCP.'));

let app: TestApp;
let owner: TestOrg;
const parents: Record<string, (inner: string) => { query: string; variables: Record<string, unknown> }> = {};
beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em());
  // Owned by the org's agent key, which reads only its own runs (RUN_SCOPE); the client reads it for its client approval.
  const [agent] = await app.em().execute<{ id: string }[]>("select id from api_keys where org_id = ? and role = 'agent'", [owner.org.id]);
  const run = await newRun(app.em(), owner, { ownerKeyId: agent.id });
  const { call } = await newToolCall(app.em(), owner, run, { approval: { kind: 'client' } });
  parents.Org = (inner) => ({ query: `{ viewer { org { ${inner} } } }`, variables: {} });
  parents.Specialist = (inner) => ({ query: `{ viewer { org { specialists { id ${inner} } } } }`, variables: {} });
  parents.AgentRun = (inner) => ({ query: `query($id: ID!) { run(id: $id) { id ${inner} } }`, variables: { id: run.id } });
  parents.ToolCall = (inner) => ({ query: `query($id: ID!) { toolCall(id: $id) { id ${inner} } }`, variables: { id: call.id } });
});
afterAll(async () => app?.close());

describe('the matrix and the schema agree', () => {
  test('every root field of the schema has an entry', () => {
    const roots = rootFields().map(({ kind, field }) => `${kind[0].toUpperCase()}${kind.slice(1)}.${field.name}`);
    expect(roots.filter((c) => !(c in ACCESS_MATRIX))).toEqual([]);
  });

  test('every coordinate of the matrix is a field of the schema', () => {
    expect(graphqlCoordinates.filter((c) => !fieldOf(c))).toEqual([]);
  });

  test("the README's role table is the matrix rendered (npm run docs:access rewrites it)", () => {
    const readme = fs.readFileSync(path.join(__dirname, '../../README.md'), 'utf8');
    const start = readme.indexOf(ACCESS_TABLE_START);
    const end = readme.indexOf(ACCESS_TABLE_END);
    expect(start).toBeGreaterThan(-1);
    expect(readme.slice(start + ACCESS_TABLE_START.length, end).trim()).toBe(renderAccessTable().trim());
  });
});

describe('simpleResolvers', () => {
  // Read after beforeAll built the schema: type-graphql completes its metadata then.
  const restricted = (coordinate: string) => coordinate in ACCESS_MATRIX;

  test('no plain field of a type with simpleResolvers carries a restriction (nothing would enforce it)', () => {
    const facts = fieldFacts();
    // Not vacuous: the types that opt out of the per-field wrapper are in the metadata.
    const simpleTypes = new Set(facts.filter((f) => f.plain).map((f) => f.coordinate.split('.')[0]));
    expect([...simpleTypes]).toEqual(expect.arrayContaining(['AgentRun', 'ToolCall', 'PageInfo', 'AgentRunConnection', 'AgentRunEdge']));
    expect(unguardedRestrictions(facts, restricted)).toEqual([]);
  });

  test("the check finds a restricted plain field, and passes a field resolver's", () => {
    const field = (coordinate: string, facts: Partial<FieldFacts>): FieldFacts => ({
      coordinate,
      plain: true,
      authorized: false,
      middleware: false,
      ...facts,
    });
    const facts = [
      field('AgentRun.status', {}),
      field('AgentRun.secret', { authorized: true }),
      field('AgentRun.audited', { middleware: true }),
      // A matrix entry for a plain field would be ignored: the auth checker never runs there.
      field('AgentRun.messages', {}),
      field('AgentRun.reply', { plain: false, authorized: true }),
    ];
    expect(unguardedRestrictions(facts, restricted)).toEqual(['AgentRun.secret', 'AgentRun.audited', 'AgentRun.messages']);
  });
});

describe('every operation with every role', () => {
  const cases = graphqlCoordinates.flatMap((coordinate) => ROLES.map((role) => [coordinate, role, mayUse(coordinate, role)] as const));

  test.each(cases)('%s as %s: allowed=%s', async (coordinate, role, allowed) => {
    const { type, field } = fieldOf(coordinate)!;
    const key = owner.keys[role];
    let code: string | undefined;
    let codes: string[];
    if (type.name === 'Subscription') {
      // An unparseable resume position (or an unknown approval): past the role check, the subscription fails BAD_USER_INPUT (NOT_FOUND).
      const position = field.args.find((a) => a.name === 'afterSequence' || a.name === 'afterOffset')?.name;
      const values = {
        ...(position ? { [position]: 'x' } : {}),
        ...(field.args.some((a) => a.name === 'runId') ? { runId: NIL } : {}),
        ...(field.args.some((a) => a.name === 'approvalId') ? { approvalId: NIL } : {}),
      };
      const ws = socket(app.wsUrl, key);
      try {
        const outcome = await runOverSocket(ws.client, rootOperation('subscription', field, values));
        const errors = outcome.kind === 'error' ? outcome.errors : outcome.kind === 'result' ? (outcome.result.errors ?? []) : [];
        codes = errors.map((e: { extensions?: { code?: string } }) => e.extensions?.code ?? 'none');
        code = codes[0];
        expect(outcome.kind).not.toBe('closed');
      } finally {
        await ws.close();
      }
    } else {
      const doc =
        type.name === 'Query' || type.name === 'Mutation'
          ? rootOperation(type.name === 'Query' ? 'query' : 'mutation', field)
          : parents[type.name](`${field.name}${selection(field)}`);
      const res = await app.gql(doc.query, { key, variables: doc.variables });
      expect(res.status).toBeLessThan(500);
      codes = (res.body.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code ?? 'none');
      code = errorCode(res);
      if (!allowed && parents[type.name]) {
        // A restricted nested field is refused at its own path, and only there.
        const at = res.body.errors?.[0]?.path as string[];
        expect(at[at.length - 1]).toBe(field.name);
        expect(res.body.errors).toHaveLength(1);
      }
    }
    if (allowed) {
      expect(codes.filter((c) => c === 'FORBIDDEN' || c === 'UNAUTHENTICATED' || c === 'INTERNAL_SERVER_ERROR')).toEqual([]);
    } else {
      expect(code).toBe('FORBIDDEN');
    }
  });

  test.each(ROLES.map((role) => [role, mayUse('MCP./mcp', role)] as const))('MCP endpoint as %s: allowed=%s', async (role, allowed) => {
    const res = await fetch(`${app.url.replace(/\/graphql$/, '')}/mcp/specialists/${owner.specialist.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.keys[role]}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const body = (await res.json().catch(() => null)) as { error?: { data?: { code?: string } } } | null;
    if (allowed) expect(body?.error?.data?.code).not.toBe('FORBIDDEN');
    else expect([res.status, body?.error?.data?.code]).toEqual([403, 'FORBIDDEN']);
  });
});
