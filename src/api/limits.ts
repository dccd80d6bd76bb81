import {
  Kind,
  Lexer,
  Source,
  TokenKind,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isLeafType,
  isListType,
  isObjectType,
  validate,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { AppError } from '../errors/app-error';
import type { ErrorCode } from '../errors/error-codes';
import type { ApiConfig } from '../config';
import { MAX_PAGE_SIZE } from '../graphql/paging';

/**
 * Limits every operation passes before it executes, the same on HTTP and on graphql-ws:
 *
 * 1. tokens, directives, aliases written in the text and unknown directives — counted on
 *    the raw text with graphql-js's lexer, before anything is parsed (`checkText`);
 * 2. depth, aliases, directives — graphql-armor's validation rules, run on the parsed
 *    document after GraphQL validation (`checkOperationLimits`): they also see what
 *    fragment spreads multiply, and documents that were never text (persisted ones);
 * 3. cost — ours (graphql-armor's cost-limit cannot see variables or list sizes): every
 *    object field costs 1, leaves cost 0, and a list multiplies what it holds by its size,
 *    taken from `first` (the argument, its variable, or its default; clamped to 0..100) or
 *    estimated as LIST_SIZE_ESTIMATE for lists without one. A root mutation field adds
 *    MUTATION_COST, once per item for a batch field (`@Extensions({ batchArgument })`, e.g.
 *    resolveApprovals' ids, which also sizes its result list). A field whose work is out of proportion to its result declares its
 *    own cost in its extensions (`@Extensions({ cost })`, e.g. verifyLedger, which
 *    re-hashes the org's whole chain): it replaces the 1, for each alias and each list
 *    item. The same cost is what the rate limiter charges.
 *
 * Gaps in graphql-armor closed here: max-aliases skips `__typename` aliases by default
 * (allowList is emptied, so `a: __typename` counts); max-depth counts a fragment spread as
 * two extra levels unless fragments are flattened (they are, so depth is field nesting);
 * its rules throw (or report a bare validation error) on rejection, so rejections are
 * collected through onReject and turned into one error with a stable code.
 */
export type OperationLimits = Pick<ApiConfig, 'maxTokens' | 'maxDepth' | 'maxAliases' | 'maxDirectives' | 'maxCost'>;

/**
 * GraphQL validation stops after this many errors (and says so in one more). Without a cap
 * a document of repeated unknown directives answered one error each, up to 100 (graphql-cop:
 * Directive Overloading); a person fixing a query needs the first few.
 */
export const MAX_VALIDATION_ERRORS = 5;

/** Assumed size of a list field that has no `first` argument (e.g. `run.toolCalls`). */
export const LIST_SIZE_ESTIMATE = 10;
/** Extra cost of each root mutation field: mutations write and may call vendors. */
export const MUTATION_COST = 10;

/**
 * The sent text's lexical limits, before anything is parsed or validated, each answered
 * with one error: tokens, then directives (every `@`, known or not), then aliases written
 * in the text (a name and a colon outside parentheses; aliases multiplied by fragment
 * spreads are counted again after validation), then a directive operations cannot use —
 * so ten `@aa` are one error, not ten (graphql-cop: Directive Overloading). Text that does
 * not lex is left to the parser, which reports the syntax error with its position.
 */
export function checkText(
  text: string,
  limits: Pick<OperationLimits, 'maxTokens' | 'maxDirectives' | 'maxAliases'>,
  executableDirectives: ReadonlySet<string>,
): void {
  const lexer = new Lexer(new Source(text));
  let tokens = 0;
  let directives = 0;
  let aliases = 0;
  let parentheses = 0;
  let unknownDirective: string | null = null;
  let previous: TokenKind | null = null;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF && tokens <= limits.maxTokens; token = lexer.advance()) {
      tokens += 1;
      if (token.kind === TokenKind.PAREN_L) parentheses += 1;
      else if (token.kind === TokenKind.PAREN_R) parentheses -= 1;
      else if (token.kind === TokenKind.AT) directives += 1;
      else if (token.kind === TokenKind.COLON && parentheses === 0 && previous === TokenKind.NAME) aliases += 1;
      else if (token.kind === TokenKind.NAME && previous === TokenKind.AT && !executableDirectives.has(token.value)) unknownDirective ??= token.value;
      previous = token.kind;
    }
  } catch {
    return; // not lexable: parsing reports GRAPHQL_PARSE_FAILED with the position
  }
  if (tokens > limits.maxTokens) throw limitError('TOO_MANY_TOKENS', `The query has more than ${limits.maxTokens} tokens`, limits.maxTokens);
  if (directives > limits.maxDirectives) {
    throw limitError('TOO_MANY_DIRECTIVES', `The query has more than ${limits.maxDirectives} directives`, limits.maxDirectives);
  }
  if (aliases > limits.maxAliases) throw limitError('TOO_MANY_ALIASES', `The query has more than ${limits.maxAliases} aliases`, limits.maxAliases);
  if (unknownDirective !== null) {
    const known = [...executableDirectives].map((name) => `@${name}`).join(', ');
    throw new AppError('BAD_USER_INPUT', `Unknown directive "@${unknownDirective}"; operations may use ${known}`, { field: 'query' });
  }
}

/**
 * Depth, aliases, directives and cost of a parsed, valid document; returns the cost of
 * `operation` or throws the limit's error.
 */
export function checkOperationLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | null | undefined,
  limits: OperationLimits,
): number {
  const refusal = structuralRefusal(schema, document, limits);
  // A fresh error per request: errors are annotated on their way to the client.
  if (refusal) throw limitError(refusal.code, refusal.message, refusal.limit);

  const cost = operationCost(schema, document, operation, variables ?? {});
  if (cost > limits.maxCost) {
    throw limitError('QUERY_TOO_COSTLY', `The query costs ${cost}, more than the limit of ${limits.maxCost}`, limits.maxCost, {
      cost,
    });
  }
  return cost;
}

/**
 * Depth, aliases and directives depend on the document alone, and the servers hand the
 * same parsed document to every request with the same text (Apollo's document store, the
 * websocket's document cache): checked once per document.
 */
interface Refusal {
  code: ErrorCode;
  message: string;
  limit: number;
}

const structural = new WeakMap<DocumentNode, { limits: OperationLimits; refusal: Refusal | null }>();

function structuralRefusal(schema: GraphQLSchema, document: DocumentNode, limits: OperationLimits): Refusal | null {
  const known = structural.get(document);
  if (known && known.limits === limits) return known.refusal;
  const refusals: Refusal[] = [];
  const onReject = (code: ErrorCode, message: string, limit: number) => [() => void refusals.push({ code, message, limit })];
  const rules: ValidationRule[] = [
    maxDepthRule({
      n: limits.maxDepth,
      flattenFragments: true,
      ignoreIntrospection: true,
      propagateOnRejection: false,
      onReject: onReject('QUERY_TOO_DEEP', `The query is nested deeper than ${limits.maxDepth} levels`, limits.maxDepth),
    }),
    maxAliasesRule({
      n: limits.maxAliases,
      allowList: [],
      propagateOnRejection: false,
      onReject: onReject('TOO_MANY_ALIASES', `The query has more than ${limits.maxAliases} aliases`, limits.maxAliases),
    }),
    maxDirectivesRule({
      n: limits.maxDirectives,
      propagateOnRejection: false,
      onReject: onReject('TOO_MANY_DIRECTIVES', `The query has more than ${limits.maxDirectives} directives`, limits.maxDirectives),
    }),
  ];
  validate(schema, document, rules);
  const refusal = refusals[0] ?? null;
  structural.set(document, { limits, refusal });
  return refusal;
}

function limitError(code: ErrorCode, message: string, limit: number, extra: Record<string, unknown> = {}): AppError {
  return new AppError(code, message, { limit, ...extra });
}

/** The estimated cost of one operation (see the module comment). */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const variableDefaults = new Map<string, unknown>();
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue?.kind === Kind.INT) {
      variableDefaults.set(definition.variable.name.value, Number(definition.defaultValue.value));
    }
  }
  // A fragment's cost depends only on the list hint it is spread under: memoized, so a
  // document that spreads fragments into fragments is costed in linear time.
  const fragmentCosts = new Map<string, number>();

  const selectionCost = (selectionSet: SelectionSetNode, parentType: GraphQLNamedType | undefined, listHint: number | null): number => {
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        total += fieldCost(selection, parentType, listHint);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parentType;
        total += selectionCost(selection.selectionSet, type, listHint);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment) continue;
        const key = `${fragment.name.value}|${listHint}`;
        let cost = fragmentCosts.get(key);
        if (cost === undefined) {
          fragmentCosts.set(key, 0); // cycles are refused by validation; never loop here
          cost = selectionCost(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value), listHint);
          fragmentCosts.set(key, cost);
        }
        total += cost;
      }
    }
    return total;
  };

  const fieldCost = (node: FieldNode, parentType: GraphQLNamedType | undefined, listHint: number | null): number => {
    const name = node.name.value;
    if (name.startsWith('__')) return 0; // __typename and introspection: no resolver work
    if (!parentType || !(isObjectType(parentType) || isInterfaceType(parentType))) return 0;
    const field = parentType.getFields()[name];
    if (!field) return 0;
    const type = getNamedType(field.type);
    if (isLeafType(type)) return 0;
    const pageSize = pageSizeOf(field, node);
    const isList = isListType(getNullableType(field.type));
    const size = isList ? (batchSizeOf(field, node) ?? pageSize ?? listHint ?? LIST_SIZE_ESTIMATE) : 1;
    // A connection's `first` sizes the list it holds (`edges`), one level down.
    const children = node.selectionSet ? selectionCost(node.selectionSet, type, isList ? null : pageSize) : 0;
    return size * (ownCost(field) + children);
  };

  const pageSizeOf = (field: GraphQLField<unknown, unknown>, node: FieldNode): number | null => {
    const argument = field.args.find((arg) => arg.name === 'first');
    if (!argument) return null;
    const sent = node.arguments?.find((arg) => arg.name.value === 'first')?.value;
    let value: unknown;
    if (sent?.kind === Kind.INT) value = Number(sent.value);
    else if (sent?.kind === Kind.VARIABLE) {
      const name = sent.name.value;
      value = variables[name] !== undefined ? variables[name] : variableDefaults.get(name);
    }
    if (value === undefined || value === null) value = argument.defaultValue; // the resolver's default too
    // Out of range is refused by the resolver (BAD_USER_INPUT); cost it as the largest page.
    if (typeof value !== 'number' || !Number.isFinite(value)) return MAX_PAGE_SIZE;
    return Math.min(Math.max(Math.trunc(value), 0), MAX_PAGE_SIZE);
  };

  /** A batch field's item count (`@Extensions({ batchArgument })`): the length of that list argument, sent or in its variable. */
  const batchSizeOf = (field: GraphQLField<unknown, unknown>, node: FieldNode): number | null => {
    const name = field.extensions?.batchArgument;
    if (typeof name !== 'string') return null;
    const sent = node.arguments?.find((arg) => arg.name.value === name)?.value;
    if (sent?.kind === Kind.LIST) return sent.values.length;
    const value = sent?.kind === Kind.VARIABLE ? variables[sent.name.value] : undefined;
    return Array.isArray(value) ? value.length : 1;
  };

  const rootType = schema.getRootType(operation.operation) ?? undefined;
  let cost = selectionCost(operation.selectionSet, rootType, null);
  if (operation.operation === 'mutation' && rootType && isObjectType(rootType)) {
    // A batch field is one mutation per item.
    for (const node of rootFields(operation.selectionSet, fragments)) {
      const field = rootType.getFields()[node.name.value];
      cost += MUTATION_COST * (field ? (batchSizeOf(field, node) ?? 1) : 1);
    }
  }
  return cost;
}

/** 1 for a field, or the cost it declares in its extensions (`@Extensions({ cost })`). */
function ownCost(field: GraphQLField<unknown, unknown>): number {
  const declared = field.extensions?.cost;
  return typeof declared === 'number' && declared >= 0 ? declared : 1;
}

function rootFields(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen = new Set<string>()): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!selection.name.value.startsWith('__')) fields.push(selection);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) fields.push(...rootFields(selection.selectionSet, fragments, seen));
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      if (fragment) fields.push(...rootFields(fragment.selectionSet, fragments, seen));
    }
  }
  return fields;
}
