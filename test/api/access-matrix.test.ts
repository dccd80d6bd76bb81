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
import { ensurePrincipal } from '../../src/identity/principals';
import { openSession } from '../../src/identity/sessions';
import { PERSON_ROLES, type PersonRole } from '../../src/identity/role-mapping';

/**
 * The access matrix (src/auth/access.ts) is the one statement of who may do what. This
 * suite derives its cases from it and from the committed schema: every root field of the
 * schema is in the matrix, every coordinate of the matrix exists, and every operation,
 * tried with every role — by a key, and by a signed-in person in each role people get — is
 * refused with FORBIDDEN exactly when the matrix says so. The README's role table is the
 * matrix rendered.
 */
const coordinates = Object.keys(ACCESS_MATRIX);
const graphqlCoordinates = coordinates.filter((c) => !c.startsWith('MCP.'));

let app: TestApp;
let owner: TestOrg;
/** A console session per person role: the cookie and CSRF token a signed-in person sends. */
const people = {} as Record<PersonRole, { cookie: string; headers: Record<string, string> }>;
const parents: Record<string, (inner: string) => { query: string; variables: Record<string, unknown> }> = {};
beforeAll(async () => {
  app = await startTestApp();
  owner = await newOrg(app.em());
  // Owned by the org's agent key, which reads only its own runs (RUN_SCOPE); the client reads it for its client approval.
  const [agent] = await app.em().execute<{ id: string }[]>("select id from api_keys where org_id = ? and role = 'agent'", [owner.org.id]);
  const run = await newRun(app.em(), owner, { ownerKeyId: agent.id });
  const { call } = await newToolCall(app.em(), owner, run, { approval: { kind: 'client' } });
  for (const role of PERSON_ROLES) {
    const who = { issuer: 'https://idp.example', subject: `person-${role}`, name: `A ${role}`, email: null };
    const principal = await ensurePrincipal(app.em(), owner.org.id, who, role, { recordName: true });
    const session = await openSession(app.em(), {
      orgId: owner.org.id,
      principal,
      issuerName: 'example',
      idToken: null,
      groups: [],
      now: Date.now(),
      ttlSeconds: 3600,
    });
    const cookie = `toolgate_session=${session.token}`;
    people[role] = { cookie, headers: { cookie, 'x-csrf-token': session.csrfToken } };
  }
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

/** Who tries an operation: a key, or a person's console session (cookie on HTTP and on the websocket upgrade). */
type Credentials = { key: string } | { person: { cookie: string; headers: Record<string, string> } };

async function tryOperation(coordinate: string, who: Credentials, allowed: boolean): Promise<void> {
  const { type, field } = fieldOf(coordinate)!;
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
    const ws =
      'key' in who
        ? socket(app.wsUrl, who.key)
        : socket(app.wsUrl, null, { headers: { cookie: who.person.cookie }, connectionParams: { csrfToken: who.person.headers['x-csrf-token'] } });
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
    const res = await app.gql(
      doc.query,
      'key' in who ? { key: who.key, variables: doc.variables } : { headers: who.person.headers, variables: doc.variables },
    );
    expect(res.status).toBeLessThan(500);
    codes = (res.body.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code ?? 'none');
    code = errorCode(res);
    if (!allowed && parents[type.name]) {
      // A restricted nested field is refused at its own path, and only there (once per parent: the org may have several specialists by now).
      const ends = (res.body.errors ?? []).map((e) => (e.path as string[])[(e.path as string[]).length - 1]);
      expect(ends.length).toBeGreaterThan(0);
      expect(new Set(ends)).toEqual(new Set([field.name]));
    }
  }
  if (allowed) {
    expect(codes.filter((c) => c === 'FORBIDDEN' || c === 'UNAUTHENTICATED' || c === 'CSRF_REFUSED' || c === 'INTERNAL_SERVER_ERROR')).toEqual([]);
  } else {
    expect(code).toBe('FORBIDDEN');
  }
}

describe('every operation with every role', () => {
  const cases = graphqlCoordinates.flatMap((coordinate) => ROLES.map((role) => [coordinate, role, mayUse(coordinate, role)] as const));

  test.each(cases)('%s as %s: allowed=%s', (coordinate, role, allowed) => tryOperation(coordinate, { key: owner.keys[role] }, allowed));

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

describe('every operation as a signed-in person, in each role people get', () => {
  const cases = graphqlCoordinates.flatMap((coordinate) => PERSON_ROLES.map((role) => [coordinate, role, mayUse(coordinate, role)] as const));

  test.each(cases)('%s as a person (%s): allowed=%s', (coordinate, role, allowed) => tryOperation(coordinate, { person: people[role] }, allowed));
});
