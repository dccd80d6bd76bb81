import { DirectiveLocation, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { ApiConfig } from '../config';
import type { Caller } from '../auth/caller';
import { checkOperationLimits, checkText } from './limits';
import { assertNoNul } from './nul-guard';
import { assertInputLengths } from './input-limits';
import { resolveDocument, type DocumentRequest, type PersistedDocuments, type ResolvedDocument } from './persisted-documents';
import { RateLimiter, UNLIMITED } from './rate-limiter';

/**
 * The checks every operation passes, in this order, on HTTP and graphql-ws alike:
 * 1. `resolve` (before parsing): trusted documents — which text to run, by id or as sent —
 *    and the lexical limits on text a client sent (tokens, directives, aliases);
 * 2. parsing and GraphQL validation (Apollo Server, or the websocket handler);
 * 3. `admit` (before execution): no NUL in string arguments, no string longer than its
 *    limit (src/api/input-limits.ts), depth, aliases, directives and cost, then the
 *    caller's rate limit is charged with the cost.
 */
export class OperationGuard {
  readonly limiter: Pick<RateLimiter, 'take' | 'charge'>;
  /** The directives an operation may carry (@include, @skip): any other is refused before parsing. */
  private readonly executableDirectives: ReadonlySet<string>;

  constructor(
    readonly manifest: PersistedDocuments,
    private readonly api: ApiConfig,
    schema: GraphQLSchema,
  ) {
    this.limiter = api.rateLimit.enabled ? new RateLimiter(api.rateLimit) : UNLIMITED;
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

  /** Returns the operation's cost after charging it (at least 1) to the caller, or throws the limit's error. */
  admit(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown> | null | undefined,
    caller: Caller,
  ): number {
    assertNoNul(document, variables);
    assertInputLengths(schema, document, variables);
    const cost = checkOperationLimits(schema, document, operation, variables, this.api);
    // Every operation takes at least a point, so a flood of `{ __typename }` is limited too.
    this.limiter.charge(rateLimitKey(caller), Math.max(1, cost));
    return cost;
  }
}

function rateLimitKey(caller: Caller): string {
  return caller.keyId ?? `org:${caller.orgId}:${caller.role}`;
}
