import { DirectiveLocation, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { ApiConfig } from '../config';
import type { Caller } from '../auth/caller';
import { checkOperationLimits, checkText } from './limits';
import { assertNoNul } from './nul-guard';
import { assertInputLengths } from './input-limits';
import { resolveDocument, type DocumentRequest, type PersistedDocuments, type ResolvedDocument } from './persisted-documents';
import { type RateLimits, type RateVerdict, rateLimitKey } from './rate-limits';

/**
 * The checks every operation passes, in this order, on HTTP and graphql-ws alike:
 * 1. `resolve` (before parsing): trusted documents — which text to run, by id or as sent —
 *    and the lexical limits on text a client sent (tokens, directives, aliases);
 * 2. parsing and GraphQL validation (Apollo Server, or the websocket handler);
 * 3. `admit` (before execution): no NUL in string arguments, no string longer than its
 *    limit (src/api/input-limits.ts), depth, aliases, directives and cost, then the
 *    caller's budget (src/api/rate-limits.ts, shared by all nodes) is charged with the cost.
 * A request refused on the way (a limit, parsing, validation) is charged one point.
 */
export class OperationGuard {
  /** The directives an operation may carry (@include, @skip): any other is refused before parsing. */
  private readonly executableDirectives: ReadonlySet<string>;

  constructor(
    readonly manifest: PersistedDocuments,
    private readonly api: ApiConfig,
    schema: GraphQLSchema,
    readonly limits: RateLimits,
  ) {
    const executable = new Set<string>([
      DirectiveLocation.QUERY,
      DirectiveLocation.MUTATION,
      DirectiveLocation.SUBSCRIPTION,
      DirectiveLocation.FIELD,
      DirectiveLocation.FRAGMENT_DEFINITION,
      DirectiveLocation.FRAGMENT_SPREAD,
      DirectiveLocation.INLINE_FRAGMENT,
      DirectiveLocation.VARIABLE_DEFINITION,
    ]);
    this.executableDirectives = new Set(
      schema
        .getDirectives()
        .filter((d) => d.locations.some((l) => executable.has(l)))
        .map((d) => d.name),
    );
  }

  resolve(request: DocumentRequest, caller: Caller): ResolvedDocument {
    const resolved = resolveDocument(request, caller.role, this.manifest, this.api.trustedDocumentRoles);
    const sentText = resolved.kind === 'text' ? resolved.query : resolved.kind === 'apq' ? resolved.query : undefined;
    if (sentText !== undefined) checkText(sentText, this.api, this.executableDirectives);
    return resolved;
  }

  /** Charges the operation's cost (at least 1) to the caller; throws the limit's error or RATE_LIMITED. */
  async admit(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown> | null | undefined,
    caller: Caller,
  ): Promise<{ cost: number; verdict: RateVerdict }> {
    assertNoNul(document, variables);
    assertInputLengths(schema, document, variables);
    const cost = checkOperationLimits(schema, document, operation, variables, this.api);
    // Every operation takes at least a point, so a flood of `{ __typename }` is limited too.
    const verdict = await this.limits.charge(rateLimitKey(caller), Math.max(1, cost));
    return { cost, verdict };
  }

  /** A request refused before it could be costed (it did not parse or validate): one point. */
  chargeRefused(caller: Caller): Promise<RateVerdict> {
    return this.limits.charge(rateLimitKey(caller), 1);
  }
}
