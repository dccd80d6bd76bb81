import Ajv, { type CodeOptions, type Options } from 'ajv';
import { RE2 } from 're2-wasm';

/** JSON-schema pieces the actions' input schemas share. */

/** An opaque vendor id: 1-128 characters. */
export const idString = (description: string) => ({ type: 'string', minLength: 1, maxLength: 128, description });

/** The input schema of an action that takes one vendor id and nothing else. */
export const singleIdInput = (field: string, description: string) => ({
  type: 'object',
  properties: { [field]: idString(description) },
  required: [field],
  additionalProperties: false,
});

/** A read that costs nothing: policy allows it by default, and the executor may repeat it. */
export const FREE_READ = { defaultRisk: 'low', costCents: 0, idempotent: true } as const;

/**
 * Ajv for schemas Toolgate did not write (an upstream MCP server's input schemas): every
 * `pattern` and `patternProperties` key is compiled with RE2 (re2-wasm), whose matching time
 * is linear in the input — `^(a+)+$` cannot stall the node on model-chosen input as a
 * backtracking RegExp does. RE2 has no lookaround nor backreferences: such a schema fails
 * to compile (the import skips the tool, `invalid_schema`).
 */
export const untrustedSchemaAjv = (options: Options = {}): Ajv => new Ajv({ strict: false, ...options, code: { regExp: linearRegExp } });

// RE2 (re2-wasm) takes only unicode patterns: Ajv's default `unicodeRegExp` already asks for the `u` flag.
// `code` is what Ajv's standalone code would call; Toolgate compiles at run time only.
const linearRegExp: NonNullable<CodeOptions['regExp']> = Object.assign(
  (pattern: string, flags: string) => new RE2(pattern, flags.includes('u') ? flags : `${flags}u`),
  { code: 'new (require("re2-wasm").RE2)' },
);
