import {
  Kind,
  TypeInfo,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type ValueNode,
} from 'graphql';
import { badInput } from '../errors/app-error';

/**
 * The longest value each string argument or input field takes, by schema coordinate
 * (`Type.field.argument` or `InputType.field`); the others take their scalar's default.
 * Checked before any resolver runs, so an over-long value never reaches SQL (an index entry
 * has a size limit; a text column does not need a megabyte name).
 */
export const MAX_INPUT_LENGTH: Readonly<Record<string, number>> = {
  'Mutation.postMessage.text': 100_000,
  'StartAgentRunInput.message': 100_000,
  'CreateSpecialistInput.systemPrompt': 20_000,
  'CedarPolicyInput.text': 20_000,
  'CreateSpecialistInput.description': 2_000,
  'Mutation.resolveApproval.reason': 2_000,
  'Mutation.resolveApprovals.reason': 2_000,
  'Mutation.createWebhookEndpoint.url': 2_048,
};
export const DEFAULT_MAX_LENGTH: Readonly<Record<string, number>> = { String: 200, ID: 100 };

interface ArgumentUse {
  coordinate: string;
  type: GraphQLInputType;
  value: ValueNode;
  path: string;
}

const plans = new WeakMap<DocumentNode, ArgumentUse[]>();

/** The arguments a document passes, with their types: found once per parsed document. */
function argumentsOf(schema: GraphQLSchema, document: DocumentNode): ArgumentUse[] {
  let plan = plans.get(document);
  if (plan) return plan;
  plan = [];
  const found = plan;
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      [Kind.ARGUMENT](node) {
        const argument = typeInfo.getArgument();
        const field = typeInfo.getFieldDef();
        const parent = typeInfo.getParentType();
        if (!argument || !field || !parent) return; // a directive's argument (@include's `if`)
        const coordinate = `${parent.name}.${field.name}.${argument.name}`;
        found.push({ coordinate, type: argument.type, value: node.value, path: `${field.name}.${argument.name}` });
      },
    }),
  );
  plans.set(document, plan);
  return plan;
}

/** Refuses any string argument or input field longer than its limit, naming where it is. */
export function assertInputLengths(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | null | undefined): void {
  for (const use of argumentsOf(schema, document)) checkLiteral(use.value, use.type, use.coordinate, use.path, variables ?? {});
}

function limitOf(coordinate: string, type: GraphQLInputType): number | undefined {
  return MAX_INPUT_LENGTH[coordinate] ?? DEFAULT_MAX_LENGTH[getNamedType(type).name];
}

function tooLong(path: string, limit: number) {
  return badInput(`${path} must be at most ${limit} characters`, { field: path });
}

function checkValue(value: unknown, type: GraphQLInputType, coordinate: string, path: string, depth = 0): void {
  if (value === null || value === undefined || depth > 32) return;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (Array.isArray(value)) for (const [i, item] of value.entries()) checkValue(item, nullable.ofType, coordinate, `${path}[${i}]`, depth + 1);
    return;
  }
  if (isInputObjectType(nullable)) {
    if (typeof value !== 'object') return; // the wrong type: GraphQL's coercion refuses it
    for (const field of Object.values(nullable.getFields())) {
      const item = (value as Record<string, unknown>)[field.name];
      checkValue(item, field.type, `${nullable.name}.${field.name}`, `${path}.${field.name}`, depth + 1);
    }
    return;
  }
  const limit = limitOf(coordinate, type);
  if (typeof value === 'string' && limit !== undefined && value.length > limit) throw tooLong(path, limit);
}

function checkLiteral(
  node: ValueNode,
  type: GraphQLInputType,
  coordinate: string,
  path: string,
  variables: Record<string, unknown>,
  depth = 0,
): void {
  if (depth > 32) return;
  const nullable = getNullableType(type);
  if (node.kind === Kind.VARIABLE) {
    checkValue(variables[node.name.value], type, coordinate, `$.${node.name.value}`);
  } else if (node.kind === Kind.LIST && isListType(nullable)) {
    for (const [i, item] of node.values.entries()) checkLiteral(item, nullable.ofType, coordinate, `${path}[${i}]`, variables, depth + 1);
  } else if (node.kind === Kind.OBJECT && isInputObjectType(nullable)) {
    const fields = nullable.getFields();
    for (const field of node.fields) {
      const def = fields[field.name.value];
      if (def) checkLiteral(field.value, def.type, `${nullable.name}.${def.name}`, `${path}.${def.name}`, variables, depth + 1);
    }
  } else if (node.kind === Kind.STRING) {
    const limit = limitOf(coordinate, type);
    if (limit !== undefined && node.value.length > limit) throw tooLong(path, limit);
  }
}
