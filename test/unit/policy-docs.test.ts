import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { type PolicyRuleInput, validateRule } from '../../src/policy/policy-rule.service';

/** docs/policy.md's examples: its GraphQL is valid against the schema, its draft file passes the rules' checks. */
const ROOT = path.join(__dirname, '..', '..');
const DOC = fs.readFileSync(path.join(ROOT, 'docs', 'policy.md'), 'utf8');
const blocks = (language: string) => [...DOC.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);

test('every GraphQL example is valid against the schema', () => {
  const schema = buildSchema(fs.readFileSync(path.join(ROOT, 'schema.graphql'), 'utf8'));
  const examples = blocks('graphql');
  expect(examples.length).toBeGreaterThanOrEqual(4);
  expect(examples.flatMap((query) => validate(schema, parse(query)).map((e) => e.message))).toEqual([]);
});

test('the draft file is a list of rules the API accepts', () => {
  const [draft] = blocks('json');
  const rules = JSON.parse(draft) as Partial<PolicyRuleInput>[];
  expect(rules).toHaveLength(3);
  for (const rule of rules) expect(() => validateRule({ conditions: [], roles: [], enabled: true, ...rule } as PolicyRuleInput)).not.toThrow();
});
