import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOG, ERROR_CODES } from '../../src/errors/error-codes';

/**
 * The README names every code the server can return, and its Errors section names no code
 * the server does not have: the catalog and the docs cannot drift apart.
 */
const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');

test('every code of the catalog is named in the README', () => {
  const missing = ERROR_CODES.filter((code) => !readme.includes(`\`${code}\``));
  expect(missing).toEqual([]);
});

test("the README's Errors section names only codes of the catalog (or GraphQL's own)", () => {
  const section = readme.split('\n### Errors\n')[1]?.split('\n### ')[0] ?? '';
  expect(section.length).toBeGreaterThan(0);
  const graphqlOwn = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST']);
  // Configuration variables (the Configuration section's table) are named there too, and are not codes.
  const configuration = readme.split('\n## Configuration\n')[1]?.split('\n## ')[0] ?? '';
  const variables = new Set([...configuration.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
  const named = [...section.matchAll(/`([A-Z][A-Z_]{3,})`/g)].map((m) => m[1]);
  const unknown = named.filter((code) => !(code in ERROR_CATALOG) && !graphqlOwn.has(code) && !variables.has(code));
  expect(unknown).toEqual([]);
});
