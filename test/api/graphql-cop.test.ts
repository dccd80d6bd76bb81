import { startTestApp, type TestApp } from '../support/app';
import { newOrg, type TestOrg } from '../support/factories';

/**
 * graphql-cop's probes (github.com/dolevf/graphql-cop, lib/tests/*.py), replayed as it sends
 * them — JSON POSTs with operationName "cop", GETs with ?query=, a form POST, an HTML GET —
 * with an admin key, and judged by its own rules. The production profile must pass every
 * check; the development profile flags only introspection and field suggestions, which are
 * on by design there (its circular introspection query is refused by the depth limit).
 */
type Probe = (url: string, key: string) => Promise<boolean>;

async function json(response: Response): Promise<any> {
  try {
    return await response.json();
  } catch {
    return null;
  }
}

const cop = (url: string, key: string, query: string, batch = false, operationName: string | null = 'cop') =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(batch ? Array.from({ length: 10 }, () => ({ query })) : { query, operationName }),
  }).then(json);

const viaGet = (url: string, key: string, query: string) =>
  fetch(`${url}?${new URLSearchParams({ query })}`, { headers: { authorization: `Bearer ${key}` } }).then(json);

/** Each check returns true when graphql-cop would report the issue. */
const PROBES: Record<string, Probe> = {
  'Alias Overloading': async (url, key) => {
    const aliases = Array.from({ length: 101 }, (_, i) => `alias${i}:__typename \n`).join('');
    return Boolean((await cop(url, key, `query cop { ${aliases} }`))?.data?.alias100);
  },
  'Array-based Query Batching': async (url, key) => {
    const answer = await cop(url, key, 'query cop { __typename }', true);
    return Array.isArray(answer) && answer.length >= 10;
  },
  'Directive Overloading': async (url, key) => (await cop(url, key, `query cop { __typename ${'@aa'.repeat(10)} }`))?.errors?.length === 10,
  'Field Suggestions': async (url, key) =>
    /Did you mean/.test((await cop(url, key, 'query cop { __schema { directive } }'))?.errors?.[0]?.message ?? ''),
  'GET Method Query Support': async (url, key) => Boolean((await viaGet(url, key, 'query cop {__typename}'))?.data?.__typename),
  'GraphQL IDE': async (url) => {
    const page = await fetch(url, { headers: { accept: 'text/html' } }).then((r) => r.text());
    return ['graphiql.min.css', 'GraphQL Playground', 'GraphiQL', 'graphql-playground'].some((word) => page.includes(word));
  },
  Introspection: async (url, key) =>
    Boolean((await cop(url, key, 'query cop { __schema { types { name fields { name } } } }'))?.data?.__schema?.types),
  'Introspection-based Circular Query': async (url, key) => {
    const q = 'query cop { __schema { types { fields { type { fields { type { fields { type { fields { type { name } } } } } } } } } } }';
    return ((await cop(url, key, q))?.data?.__schema?.types?.length ?? 0) > 25;
  },
  'Mutation is allowed over GET': async (url, key) => Boolean((await viaGet(url, key, 'mutation cop {__typename}'))?.data?.__typename),
  'POST based url-encoded query': async (url, key) => {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: 'query cop { __typename }' }),
    }).then(json);
    return Boolean(answer?.data?.__typename);
  },
  'Trace Mode': async (url, key) => {
    const answer = await cop(url, key, 'query cop { __typename }');
    return Boolean(answer?.errors?.[0]?.extensions?.tracing) || /"tracing"/.test(JSON.stringify(answer?.extensions ?? {}));
  },
  'Unhandled Errors Detection': async (url, key) => {
    const answer = await cop(url, key, 'qwerty cop { abc }');
    return Boolean(answer?.errors?.[0]?.extensions?.exception) || /"exception"/.test(JSON.stringify(answer ?? {}));
  },
};

async function findings(app: TestApp, key: string): Promise<string[]> {
  const found: string[] = [];
  for (const [name, probe] of Object.entries(PROBES)) if (await probe(app.url, key)) found.push(name);
  return found;
}

describe.each([
  ['production', { NODE_ENV: 'production' }, []],
  // The IDE is served outside production by design (GRAPHQL_IDE), like introspection.
  ['development', {}, ['Field Suggestions', 'GraphQL IDE', 'Introspection']],
] as const)('the %s profile', (_profile, env, expected) => {
  let app: TestApp;
  let owner: TestOrg;
  beforeAll(async () => {
    app = await startTestApp({ ...env });
    owner = await newOrg(app.em(), 'Cop Org');
  });
  afterAll(async () => app?.close());

  test(`graphql-cop's 12 checks find ${expected.length ? expected.join(', ') : 'nothing'}`, async () => {
    expect(await findings(app, owner.keys.admin)).toEqual(expected);
    // And the server is healthy after the probes.
    const res = await cop(app.url, owner.keys.admin, '{ viewer { role } }', false, null);
    expect(res.data).toEqual({ viewer: { role: 'admin' } });
  });
});
