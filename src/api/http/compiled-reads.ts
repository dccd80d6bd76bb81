import { HeaderMap, type ApolloServerPlugin, type GraphQLResponse } from '@apollo/server';
import { Kind, getVariableValues, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { RequestContext } from '../../graphql/context';

/**
 * Compiled execution (graphql-jit) of hot read operations, behind Apollo Server and on its
 * one schema, through the public `responseForOperation` hook: it runs after parsing,
 * validation and the operation guard (limits, rate limit), where Apollo would call
 * graphql-js `execute()`. graphql-js's per-field work (argument maps, field collection,
 * a promise per object with an async field) was ≈ 2 ms of CPU for 50 runs with their 200
 * calls; compiled, ≈ 1.3 ms less (docs/benchmarks.md, "Reads (item 3)").
 *
 * The compiled answer is used only when it has no errors. Anything else — an error of a
 * resolver, a variable graphql-js would refuse, a document graphql-jit cannot compile —
 * answers `null`, and Apollo executes the operation with graphql-js as before: errors,
 * their codes, paths, formatting and logging stay graphql-js's and Apollo's. A document
 * whose compiled run failed where graphql-js then succeeded (a lazy `totalCount`, which
 * graphql-jit reads as a plain value) is never compiled again, nor one whose compiled runs
 * fail more often than they answer (COMPILE_AFTER failures at least): its reads would run twice.
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

/** Not compiled yet (seen so many times), compiled (its answers and failures), or never to be compiled. */
interface DocumentState {
  seen: number;
  compiled?: CompiledQuery;
  answered: number;
  failed: number;
  off?: true;
}
type CompiledDocument = DocumentState & { compiled: CompiledQuery };

export interface CompiledReadsOptions {
  readRootFields?: ReadonlySet<string>;
  compileAfter?: number;
}

export function compiledReadsPlugin(options: CompiledReadsOptions = {}): ApolloServerPlugin<RequestContext> {
  const readRootFields = options.readRootFields ?? READ_ROOT_FIELDS;
  const compileAfter = options.compileAfter ?? COMPILE_AFTER;
  // Keyed by Apollo's parsed document: an entry lives as long as Apollo's cache holds it.
  const documents = new WeakMap<DocumentNode, DocumentState>();

  /** The document's state once it is compiled, else null. */
  const compiledFor = (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): CompiledDocument | null => {
    let state = documents.get(document);
    if (!state) {
      state = { seen: 0, answered: 0, failed: 0, ...(isCompilable(document, operation, readRootFields) ? {} : { off: true as const }) };
      documents.set(document, state);
    }
    if (state.off) return null;
    if (state.compiled) return state as CompiledDocument;
    state.seen += 1;
    if (state.seen < compileAfter) return null;
    const compiled = compileQuery(schema, document, operation.name?.value);
    if (!isCompiledQuery(compiled)) {
      state.off = true;
      return null;
    }
    state.compiled = compiled;
    return state as CompiledDocument;
  };

  return {
    async requestDidStart() {
      let fellBack: DocumentState | null = null;
      return {
        async responseForOperation({ schema, document, operation, request, contextValue }): Promise<GraphQLResponse | null> {
          if (operation?.operation !== 'query') return null;
          const state = compiledFor(schema, document, operation);
          if (!state) return null;
          const variables = request.variables ?? {};
          // Variables graphql-js would refuse: it reports them, in its words.
          if (getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 1 }).errors) return null;
          const result = await state.compiled.query(undefined, contextValue, variables);
          if (result.errors?.length) {
            fellBack = state;
            return null;
          }
          state.answered += 1;
          return { http: { headers: new HeaderMap(), status: undefined }, body: { kind: 'single', singleResult: { data: result.data } } };
        },
        async willSendResponse({ response }) {
          if (!fellBack) return;
          // graphql-js answered without an error where the compiled run had one: not this document again.
          if (response.body.kind === 'single' && !response.body.singleResult.errors?.length) fellBack.off = true;
          else if (++fellBack.failed >= compileAfter && fellBack.failed > fellBack.answered) fellBack.off = true;
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
