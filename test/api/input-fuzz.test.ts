import { type GraphQLInputType, getNamedType, getNullableType, isEnumType, isInputObjectType, isListType, isScalarType } from 'graphql';
import { startTestApp, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';
import { runOverSocket, socket } from '../support/graphql-http';
import { type AnyField, rootFields, rootOperation, sampleValue } from '../support/schema-documents';
import { ROLES } from '../../src/auth/roles';
import { DEFAULT_MAX_LENGTH, MAX_INPUT_LENGTH } from '../../src/api/input-limits';

/**
 * Every argument and input field of every query, mutation and subscription (walked from the
 * committed schema) gets bad values — a NUL, one character over its limit, the wrong type,
 * malformed ids — with every role: the answer is a client error with a stable code, never
 * INTERNAL_SERVER_ERROR or a 5xx; NUL and over-long strings are BAD_USER_INPUT before any
 * resolver runs; no log line carries the values; the server is healthy after.
 */
const MARK = 'fuzz7c1e';

interface Target {
  /** Where the bad value goes: the argument, then input fields. */
  path: string[];
  coordinate: string;
  type: GraphQLInputType;
}

/** Every argument of the field and every input field below it (input types are walked once per path). */
function targetsOf(field: AnyField, parent: string): Target[] {
  const found: Target[] = [];
  const walk = (type: GraphQLInputType, path: string[], coordinate: string, seen: Set<string>) => {
    found.push({ path, coordinate, type });
    const named = getNamedType(type);
    if (isInputObjectType(named) && !seen.has(named.name)) {
      for (const inner of Object.values(named.getFields())) {
        walk(inner.type, [...path, inner.name], `${named.name}.${inner.name}`, new Set([...seen, named.name]));
      }
    }
  };
  for (const arg of field.args) walk(arg.type, [arg.name], `${parent}.${field.name}.${arg.name}`, new Set());
  return found;
}

function limitOf(target: Target): number | undefined {
  return MAX_INPUT_LENGTH[target.coordinate] ?? DEFAULT_MAX_LENGTH[getNamedType(target.type).name];
}

/** Bad values for one target, each with the code it must get (undefined: any client error). */
function badValues(target: Target): { name: string; value: unknown; code?: string }[] {
  const named = getNamedType(target.type);
  const list = isListType(getNullableType(target.type));
  const wrap = (value: unknown) => (list ? [value] : value);
  if (isScalarType(named) && (named.name === 'String' || named.name === 'ID')) {
    const limit = limitOf(target)!;
    return [
      { name: 'NUL', value: wrap(`${MARK}\u0000`), code: 'BAD_USER_INPUT' },
      { name: 'over-long', value: wrap(MARK + 'x'.repeat(limit + 1 - MARK.length)), code: 'BAD_USER_INPUT' },
      { name: 'wrong type', value: wrap({ [MARK]: 1 }) },
      { name: 'malformed id', value: wrap(`${MARK}-' or 1=1 --`) },
      { name: 'empty', value: wrap('') },
    ];
  }
  if (isEnumType(named)) return [{ name: 'unknown enum value', value: wrap(MARK) }];
  if (isInputObjectType(named)) return [{ name: 'wrong type', value: wrap(MARK) }];
  if (named.name === 'Int' || named.name === 'Float') {
    return [
      { name: 'wrong type', value: wrap(MARK) },
      { name: 'negative', value: wrap(-1) },
      { name: 'huge', value: wrap(2 ** 31) },
    ];
  }
  return [{ name: 'wrong type', value: wrap(`${MARK}\u0000`) }];
}

/** The root field's required arguments, with the bad value placed at the target's path. */
function variablesWith(field: AnyField, target: Target, value: unknown): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  const [argName, ...inner] = target.path;
  const arg = field.args.find((a) => a.name === argName)!;
  if (inner.length === 0) {
    extra[argName] = value;
  } else {
    // A list argument of input objects (simulatePolicy's rules): the value goes into its one element.
    const sample = sampleValue(arg.type);
    const root = (Array.isArray(sample) ? sample[0] : sample) as Record<string, unknown>;
    let cursor = root;
    let type = getNamedType(arg.type);
    for (const [i, key] of inner.entries()) {
      if (i === inner.length - 1) {
        cursor[key] = value;
        break;
      }
      const fieldType = isInputObjectType(type) ? type.getFields()[key].type : undefined;
      const next = Array.isArray(cursor[key]) ? (cursor[key] as Record<string, unknown>[])[0] : cursor[key];
      const child = (next ?? (fieldType ? sampleValue(getNullableType(fieldType) as GraphQLInputType) : {})) as Record<string, unknown>;
      const holder = Array.isArray(child) ? child[0] : child;
      cursor[key] = fieldType && isListType(getNullableType(fieldType)) ? [holder] : holder;
      cursor = holder;
      type = getNamedType(fieldType!);
    }
    extra[argName] = sample;
  }
  return rootOperation('query', field, extra).variables;
}

let app: TestApp;
let owner: TestOrg;
beforeAll(async () => {
  // Thousands of refused operations per key in seconds: a budget the fuzz cannot spend (the
  // rate limit has its own suite, test/api/rate-limit.test.ts), so every refusal is the input's.
  app = await startTestApp({ RATE_LIMIT_POINTS: '100000000' }, { captureLogs: true });
  owner = await newOrg(app.em(), 'Fuzz Org');
});
afterAll(async () => app?.close());

const cases = rootFields().flatMap(({ kind, field }) =>
  targetsOf(field, kind === 'query' ? 'Query' : kind === 'mutation' ? 'Mutation' : 'Subscription').flatMap((target) =>
    badValues(target).map((bad) => ({ kind, field, target, bad, label: `${field.name}(${target.path.join('.')}) ${bad.name}` })),
  ),
);

test('the walk reaches every argument of every operation', () => {
  const reached = new Set(cases.map((c) => `${c.field.name}.${c.target.path[0]}`));
  const all = rootFields().flatMap(({ field }) => field.args.map((a) => `${field.name}.${a.name}`));
  expect(all.filter((a) => !reached.has(a))).toEqual([]);
  expect(cases.length).toBeGreaterThan(150);
});

test.each(ROLES.map((role) => [role]))(
  'every bad value, as %s: a client error with a stable code, never a 5xx',
  async (role) => {
    const key = owner.keys[role];
    const failures: string[] = [];
    const ws = socket(app.wsUrl, key);
    try {
      for (const { kind, field, target, bad, label } of cases) {
        const variables = variablesWith(field, target, bad.value);
        const { query } = rootOperation(kind, field, variables);
        let codes: string[];
        if (kind === 'subscription') {
          const outcome = await runOverSocket(ws.client, { query, variables }, 3000).catch((error: Error) => {
            failures.push(`${label}: ${error.message}`);
            return { kind: 'result', result: { errors: [] } } as const;
          });
          const errors = outcome.kind === 'error' ? outcome.errors : outcome.kind === 'result' ? (outcome.result.errors ?? []) : [];
          if (outcome.kind === 'closed') failures.push(`${label}: socket closed ${outcome.code}`);
          codes = errors.map((e: { extensions?: { code?: string } }) => e.extensions?.code ?? 'none');
        } else {
          const res = await app.gql(query, { key, variables });
          if (res.status >= 500) failures.push(`${label}: HTTP ${res.status}`);
          codes = (res.body.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code ?? 'none');
        }
        if (codes.includes('INTERNAL_SERVER_ERROR') || codes.includes('none')) failures.push(`${label}: ${codes.join(',')}`);
        if (bad.code && !codes.includes(bad.code)) failures.push(`${label}: expected ${bad.code}, got ${codes.join(',') || 'no error'}`);
      }
    } finally {
      await ws.close();
    }
    expect(failures).toEqual([]);
  },
  120_000,
);

test('no log line carries a fuzzed value, and the server is healthy after', async () => {
  expect(app.logs.filter((line) => line.includes(MARK))).toEqual([]);
  const res = await app.gql('{ viewer { role } }', { key: owner.keys.admin });
  expect(res.body).toEqual({ data: { viewer: { role: 'admin' } } });
});

test('a value at its limit is accepted by the guard', async () => {
  const res = await app.gql('mutation($n: String!) { createSpecialist(input: { name: $n }) { name } }', {
    key: owner.keys.admin,
    variables: { n: 'n'.repeat(DEFAULT_MAX_LENGTH.String) },
  });
  expect(res.body.errors?.map((e: { extensions?: { code?: string } }) => e.extensions?.code) ?? []).not.toContain('INTERNAL_SERVER_ERROR');
  const over = await app.gql('mutation($n: String!) { createSpecialist(input: { name: $n }) { name } }', {
    key: owner.keys.admin,
    variables: { n: 'n'.repeat(DEFAULT_MAX_LENGTH.String + 1) },
  });
  expect(over.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: '$.n' } });
});
