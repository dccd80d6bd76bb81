import type { SchemaJson, Type } from '@cedar-policy/cedar-wasm/nodejs';

/**
 * Toolgate's entities as a Cedar schema (docs/policy.md, "Cedar"), generated from the tools an
 * org may call: Cedar policies are validated against it when they are saved.
 *
 * - principal: the caller, `Toolgate::Role::"agent"`, or `Toolgate::Person::"<id>"` (in its role)
 *   when a person calls; resource: the tool, `Toolgate::Tool::"invoice"` (in its org);
 * - action: one per tool action, `Toolgate::Action::"invoice.send"`;
 * - context: `params` (the call's params, typed from the action's input schema), `risk` (the
 *   catalog's default risk of the action), `run` (the run's id) and `specialist`.
 */
export const CEDAR_NAMESPACE = 'Toolgate';

/** An attribute's type and whether it must be present (the JSON schema's `required`). */
type CedarAttribute = Type<string> & { required?: boolean };

/** The Cedar type of a JSON schema value; null when Cedar has none that fits (the value is left out). */
export type ParamType =
  | { kind: 'String' | 'Long' | 'Boolean' | 'decimal' }
  | { kind: 'Set'; element: ParamType }
  | { kind: 'Record'; attributes: ReadonlyMap<string, { type: ParamType; required: boolean }> };

export interface CedarTool {
  toolName: string;
  action: string;
  inputSchema: Record<string, unknown>;
}

/** Deeper params are left out: a bound on the schema's size, not a limit anyone should meet. */
const MAX_DEPTH = 8;

/**
 * A JSON schema as a Cedar type: string → String, integer → Long, number → decimal (Cedar has
 * no floating point: four decimal places), boolean → Boolean, object → record of its declared
 * properties, array → Set of its items. Anything else (no type, a list of types, `oneOf`) has
 * no Cedar type and is left out of the context.
 */
export function paramType(schema: unknown, depth = 0): ParamType | null {
  if (schema === null || typeof schema !== 'object' || depth > MAX_DEPTH) return null;
  const s = schema as Record<string, unknown>;
  switch (s.type) {
    case 'string':
      return { kind: 'String' };
    case 'integer':
      return { kind: 'Long' };
    case 'number':
      return { kind: 'decimal' };
    case 'boolean':
      return { kind: 'Boolean' };
    case 'array': {
      const element = paramType(s.items, depth + 1);
      return element ? { kind: 'Set', element } : null;
    }
    case 'object': {
      const required = new Set(Array.isArray(s.required) ? s.required : []);
      const attributes = new Map<string, { type: ParamType; required: boolean }>();
      const properties = s.properties !== null && typeof s.properties === 'object' ? (s.properties as Record<string, unknown>) : {};
      for (const [name, property] of Object.entries(properties)) {
        const type = paramType(property, depth + 1);
        if (type) attributes.set(name, { type, required: required.has(name) });
      }
      return { kind: 'Record', attributes };
    }
    default:
      return null;
  }
}

function cedarType(type: ParamType): Type<string> {
  switch (type.kind) {
    case 'decimal':
      return { type: 'Extension', name: 'decimal' };
    case 'Set':
      return { type: 'Set', element: cedarType(type.element) };
    case 'Record':
      return {
        type: 'Record',
        attributes: Object.fromEntries(
          [...type.attributes].map(([name, a]) => [name, { ...cedarType(a.type), required: a.required } as CedarAttribute]),
        ),
      };
    default:
      return { type: type.kind };
  }
}

const EMPTY_RECORD: ParamType = { kind: 'Record', attributes: new Map() };

/** The schema for an org whose callable tools are `tools`. */
export function cedarSchema(tools: readonly CedarTool[]): SchemaJson<string> {
  const actions = Object.fromEntries(
    tools.map((tool) => [
      `${tool.toolName}.${tool.action}`,
      {
        appliesTo: {
          principalTypes: ['Role', 'Person'],
          resourceTypes: ['Tool'],
          context: {
            type: 'Record',
            attributes: {
              params: cedarType(paramType(tool.inputSchema) ?? EMPTY_RECORD),
              risk: { type: 'String' },
              run: { type: 'String' },
              specialist: { type: 'Entity', name: 'Specialist' },
            },
          },
        },
      },
    ]),
  );
  return {
    [CEDAR_NAMESPACE]: {
      entityTypes: {
        Org: {},
        Role: {},
        Person: { memberOfTypes: ['Role'] },
        Specialist: { memberOfTypes: ['Org'] },
        Tool: { memberOfTypes: ['Org'] },
      },
      actions,
    },
  } as SchemaJson<string>;
}
