import {
  getNamedType,
  isLeafType,
  isObjectType,
  Kind,
  parse,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * The requested cost of a query the way Shopify documents it: scalars and enums 0, an
 * object 1, a connection 2 + first × the cost of one node, a list with `first` n × the
 * cost of one element. https://shopify.dev/docs/api/usage/limits#cost-calculation
 * Returns 0 for a query that does not parse (the executor reports it).
 */
export function requestedQueryCost(schema: GraphQLSchema, source: string, variables: Record<string, unknown>, operationName?: string): number {
  let document: DocumentNode;
  try {
    document = parse(source);
  } catch {
    return 0;
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  const operations: OperationDefinitionNode[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    if (definition.kind === Kind.OPERATION_DEFINITION) operations.push(definition);
  }
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  const root = schema.getQueryType();
  if (!operation || !root || operation.operation !== 'query') return 0;

  const argument = (field: FieldNode, name: string): unknown => {
    const node = field.arguments?.find((a) => a.name.value === name);
    return node ? valueFromASTUntyped(node.value, variables) : undefined;
  };
  const included = (selection: SelectionNode) =>
    (selection.directives ?? []).every((directive) => {
      const condition = directive.arguments?.find((a) => a.name.value === 'if');
      const value = condition ? valueFromASTUntyped(condition.value, variables) : undefined;
      if (directive.name.value === 'include') return value === true;
      if (directive.name.value === 'skip') return value !== true;
      return true;
    });

  const selectionCost = (set: SelectionSetNode | undefined, type: GraphQLObjectType, depth: number): number => {
    if (!set || depth > 20) return 0;
    let total = 0;
    for (const selection of set.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        total += selectionCost(fragments.get(selection.name.value)?.selectionSet, type, depth + 1);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        total += selectionCost(selection.selectionSet, type, depth + 1);
      } else {
        const definition = type.getFields()[selection.name.value];
        const named = definition ? getNamedType(definition.type) : undefined;
        if (!named || isLeafType(named) || !isObjectType(named)) continue;
        const inner = selectionCost(selection.selectionSet, named, depth + 1);
        const size = argument(selection, 'first') ?? argument(selection, 'last');
        if (typeof size !== 'number') total += 1 + inner;
        else if (named.name.endsWith('Connection')) total += 2 + size * inner;
        else total += size * (1 + inner);
      }
    }
    return total;
  };
  return selectionCost(operation.selectionSet, root, 0);
}

/**
 * The actual cost of an answer, from what it holds: 1 per object, 2 more per connection.
 * Shopify deducts the requested cost up front and refunds the difference afterwards.
 */
export function actualQueryCost(data: unknown): number {
  const walk = (value: unknown): number => {
    if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + walk(v), 0);
    if (!value || typeof value !== 'object') return 0;
    const object = value as Record<string, unknown>;
    const own = 'nodes' in object || 'edges' in object ? 3 : 1;
    return Object.values(object).reduce((sum: number, v) => sum + walk(v), own);
  };
  return Math.max(0, walk(data) - 1);
}
