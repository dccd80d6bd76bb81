import fs from 'node:fs';
import path from 'node:path';
import { buildToolgateSchema, printToolgateSchema } from '../src/api/schema';

const SCHEMA_FILE = path.join(__dirname, '..', 'schema.graphql');

test('the committed schema.graphql matches the code (run `npm run schema` to update it)', async () => {
  const printed = printToolgateSchema(await buildToolgateSchema());
  if (!fs.existsSync(SCHEMA_FILE)) {
    throw new Error('schema.graphql is missing: run `npm run schema` and commit the file');
  }
  const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
  if (committed !== printed) {
    const a = committed.split('\n');
    const b = printed.split('\n');
    let line = 0;
    while (line < Math.max(a.length, b.length) && a[line] === b[line]) line++;
    throw new Error(
      'schema.graphql is out of date with the GraphQL code: run `npm run schema` and commit the result.\n' +
        `First difference at line ${line + 1}:\n  committed: ${JSON.stringify(a[line])}\n  generated: ${JSON.stringify(b[line])}`,
    );
  }
  expect(committed).toBe(printed);
});
