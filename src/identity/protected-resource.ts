import express from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { rawStatements } from '../db/raw-transaction';
import { isDatabaseUnavailable } from '../db/unavailable';
import type { Identity, ResourcePath } from './identity';
import { TokenRefused } from './access-tokens';

/** The agent scope MCP clients are told to ask for when no binding names one. */
export const DEFAULT_AGENT_SCOPE = 'toolgate:agent';

/** A header parameter's quoted string: no quote, backslash or control character (RFC 6750 §3). */
const quoted = (text: string) => `"${text.replace(/[^\x20-\x7E]|["\\]/g, ' ').slice(0, 200)}"`;

/**
 * The `WWW-Authenticate` of a refused request to a protected resource: the Bearer scheme
 * with `resource_metadata` (RFC 9728 §5.1), and for a refused token its RFC 6750 error.
 */
export function bearerChallenge(identity: Identity, path: ResourcePath, error?: unknown): string {
  const parts = [`resource_metadata=${quoted(identity.metadataUrl(path))}`];
  if (error instanceof TokenRefused) {
    if (error.tokenError) parts.push(`error=${quoted(error.tokenError)}`);
    parts.push(`error_description=${quoted(error.message)}`);
    // The scope the refusal names (the org's agent scope), not a default another org may not use.
    if (error.tokenError === 'insufficient_scope' && error.scope) parts.push(`scope=${quoted(error.scope)}`);
  }
  return `Bearer ${parts.join(', ')}`;
}

/**
 * `/.well-known/oauth-protected-resource[/mcp|/graphql]`: OAuth 2.0 Protected Resource
 * Metadata (RFC 9728), as the MCP authorization specification asks. The authorization
 * servers are the configured issuers; `/mcp`'s scopes are the agent scopes orgs bound.
 * The root document describes `/mcp`, the resource MCP clients discover.
 */
export function protectedResourceRoutes(identity: Identity, orm: MikroORM): express.Router {
  const router = express.Router();
  const document = async (path: ResourcePath) => {
    const base = {
      resource: identity.resourceUrl(path),
      authorization_servers: identity.issuers.list.map((issuer) => issuer.issuer),
      bearer_methods_supported: ['header'],
      resource_name: path === 'mcp' ? 'Toolgate MCP (governed tools of a run)' : 'Toolgate GraphQL API',
      resource_documentation: `${identity.publicUrl}/console/`,
    };
    if (path === 'graphql') return base;
    const rows = await rawStatements(orm).execute<{ scope: string }[]>(
      'select distinct agent_scope as scope from identity_bindings where agent_scope is not null order by 1',
    );
    return { ...base, scopes_supported: rows.length > 0 ? rows.map((row) => row.scope) : [DEFAULT_AGENT_SCOPE] };
  };
  const serve =
    (path: ResourcePath): express.RequestHandler =>
    async (_req, res, next) => {
      try {
        res.setHeader('cache-control', 'public, max-age=300');
        res.json(await document(path));
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          res.status(503).setHeader('retry-after', '5').json({ error: 'temporarily_unavailable' });
          return;
        }
        next(error);
      }
    };
  router.get(['/', '/mcp', '/mcp/*rest'], serve('mcp'));
  router.get('/graphql', serve('graphql'));
  return router;
}
