import { HeaderMap, type ApolloServerPlugin, type GraphQLResponse } from '@apollo/server';
import { Kind, getVariableValues, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { RequestContext } from '../../graphql/context';

/**
 * Compiled execution (graphql-jit) of hot read operations, behind Apollo Server and on its
 * one schema, through the public `responseForOperation` hook: it runs after parsing,
 * validation and the operation guard (limits, rate limit), where Apollo would call
 * graphql-js `execute()`. graphql-js's per-field work (argument maps, field collection,
 * a promise per object with an async field) is half of a list of runs with their calls'
 * execution CPU (docs/benchmarks.md, "Reads (item 3)").
 *
 * The compiled answer is used only when it has no errors. Anything else — an error of a
 * resolver, a variable graphql-js would refuse, a document graphql-jit cannot compile —
 * answers `null`, and Apollo executes the operation with graphql-js as before: errors,
 * their codes, paths, formatting and logging stay graphql-js's and Apollo's. A document
 * whose compiled run failed where graphql-js then succeeded (a lazy `totalCount`, which
 * graphql-jit reads as a plain value) is never compiled again.
 *
 * Which documents: a query whose document holds that one operation, all of whose root
 * fields only read (READ_ROOT_FIELDS: a failed compiled run is executed again, so no root
 * field that writes or costs much), once Apollo has handed the same parsed document
 * (its document cache) COMPILE_AFTER times — a text sent once is never compiled.
 */
export const READ_ROOT_FIELDS: ReadonlySet<string> = new Set([
  'apiKeys',
  'approvalRequests',
  'ledgerEvents',
  'mcpServers',
  'policyDecisions',
  'policyRules',
  'run',
  'runs',
  'toolCall',
  'toolCalls',
  'toolCatalog',
  'viewer',
  'webhookDeliveries',
  'webhookEndpoints',
]);

/** Executions of one parsed document before it is compiled. */
export const COMPILE_AFTER = 3;

/** Not compiled yet (seen so many times), compiled, or never to be compiled. */
interface DocumentState {
  seen: number;
  compiled?: CompiledQuery;
  off?: true;
}

export interface CompiledReadsOptions {
  readRootFields?: ReadonlySet<string>;
  compileAfter?: number;
}

export function compiledReadsPlugin(options: CompiledReadsOptions = {}): ApolloServerPlugin<RequestContext> {
  const readRootFields = options.readRootFields ?? READ_ROOT_FIELDS;
  const compileAfter = options.compileAfter ?? COMPILE_AFTER;
  // Keyed by Apollo's parsed document: an entry lives as long as Apollo's cache holds it.
  const documents = new WeakMap<DocumentNode, DocumentState>();

  const compiledFor = (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): CompiledQuery | null => {
    let state = documents.get(document);
    if (!state) {
      state = isCompilable(document, operation, readRootFields) ? { seen: 0 } : { seen: 0, off: true };
      documents.set(document, state);
    }
    if (state.off) return null;
    if (state.compiled) return state.compiled;
    state.seen += 1;
    if (state.seen < compileAfter) return null;
    const compiled = compileQuery(schema, document, operation.name?.value);
    if (!isCompiledQuery(compiled)) {
      state.off = true;
      return null;
    }
    state.compiled = compiled;
    return compiled;
  };

  return {
    async requestDidStart() {
      let fellBack: DocumentNode | null = null;
      return {
        async responseForOperation({ schema, document, operation, request, contextValue }): Promise<GraphQLResponse | null> {
          if (operation?.operation !== 'query') return null;
          const compiled = compiledFor(schema, document, operation);
          if (!compiled) return null;
          const variables = request.variables ?? {};
          // Variables graphql-js would refuse: it reports them, in its words.
          if (getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 1 }).errors) return null;
          const result = await compiled.query(undefined, contextValue, variables);
          if (result.errors?.length) {
            fellBack = document;
            return null;
          }
          return { http: { headers: new HeaderMap(), status: undefined }, body: { kind: 'single', singleResult: { data: result.data } } };
        },
        async willSendResponse({ response }) {
          // graphql-js answered without an error where the compiled run had one: not this document again.
          if (fellBack && response.body.kind === 'single' && !response.body.singleResult.errors?.length) {
            const state = documents.get(fellBack);
            if (state) state.off = true;
          }
        },
      };
    },
  };
}

/** One query operation, every root selection a field that only reads. */
function isCompilable(document: DocumentNode, operation: OperationDefinitionNode, readRootFields: ReadonlySet<string>): boolean {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1 || operations[0] !== operation) return false;
  return operation.selectionSet.selections.every(
    (selection) => selection.kind === Kind.FIELD && readRootFields.has(selection.name.value) && !selection.directives?.length,
  );
}
