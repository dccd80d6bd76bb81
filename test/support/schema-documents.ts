import fs from 'node:fs';
import path from 'node:path';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
} from 'graphql';

/**
 * Documents generated from the committed schema (schema.graphql, kept current by CI), for
 * suites that try every operation: the role matrix, the input fuzz.
 */
export const SCHEMA: GraphQLSchema = buildSchema(fs.readFileSync(path.join(__dirname, '../../schema.graphql'), 'utf8'));
export const NIL_ID = '00000000-0000-4000-8000-000000000000';
export type AnyField = GraphQLField<unknown, unknown>;

export function fieldAt(coordinate: string): { type: GraphQLObjectType; field: AnyField } | null {
  const [typeName, fieldName] = coordinate.split('.');
  const type = SCHEMA.getType(typeName) as GraphQLObjectType | undefined;
  const field = type?.getFields?.()[fieldName];
  return type && field ? { type, field } : null;
}

export function rootFields(): { kind: 'query' | 'mutation' | 'subscription'; field: AnyField }[] {
  const roots = [
    ['query', SCHEMA.getQueryType()],
    ['mutation', SCHEMA.getMutationType()],
    ['subscription', SCHEMA.getSubscriptionType()],
  ] as const;
  return roots.flatMap(([kind, type]) => Object.values(type!.getFields()).map((field) => ({ kind, field })));
}

/** A value the schema accepts for a required input (the resolvers then refuse or ignore it). */
export function sampleValue(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return sampleValue(type.ofType);
  if (isListType(type)) return [sampleValue(type.ofType)];
  if (isEnumType(type)) return type.getValues()[0].value;
  if (isInputObjectType(type)) {
    const value: Record<string, unknown> = {};
    for (const field of Object.values(type.getFields())) if (isNonNullType(field.type)) value[field.name] = sampleValue(field.type);
    return value;
  }
  const samples: Record<string, unknown> = {
    ID: NIL_ID,
    String: 'x',
    Boolean: true,
    Int: 1,
    Float: 1,
    JSON: {},
    JSONObject: {},
    DateTimeISO: new Date(0).toISOString(),
  };
  if (!(type.name in samples)) throw new Error(`no sample for scalar ${type.name}`);
  return samples[type.name];
}

export function selectionOf(field: AnyField): string {
  return isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
}

/** A document calling one root field with its required arguments (and `extra`) as variables. */
export function rootOperation(kind: 'query' | 'mutation' | 'subscription', field: AnyField, extra: Record<string, unknown> = {}) {
  const args = field.args.filter((a: GraphQLArgument) => isNonNullType(a.type) || a.name in extra);
  const variables: Record<string, unknown> = {};
  for (const arg of args) variables[arg.name] = arg.name in extra ? extra[arg.name] : sampleValue(arg.type);
  const defs = args.map((a) => `$${a.name}: ${a.type}`).join(', ');
  const call = args.length ? `(${args.map((a) => `${a.name}: $${a.name}`).join(', ')})` : '';
  const query = `${kind} Probe${defs ? `(${defs})` : ''} { ${field.name}${call}${selectionOf(field)} }`;
  return { query, variables };
}
