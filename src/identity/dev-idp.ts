import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Configuration, KoaContextWithOIDC, ResourceServer } from './oidc-provider-types';
import { memoryStore } from './dev-idp-store';
import { logoutSource, postLogoutSuccessSource, renderError } from './dev-idp-pages';

/**
 * The development identity provider (`toolgate dev-idp`, and every test that signs a person
 * in): an OpenID Connect issuer in process, oidc-provider with its own login form. It knows
 * a fixed list of people, the console as a confidential client, lets MCP clients register
 * themselves, and issues JWT access tokens bound to Toolgate's /mcp and /graphql (RFC 8707).
 */
export interface DevPerson {
  /** The stable subject, what Toolgate keys a person by. */
  sub: string;
  /** What the person types in the login form (any password). */
  login: string;
  name: string;
  email: string;
  groups: string[];
  tenant: string;
}

export interface DevIdpOptions {
  /** Toolgate's PUBLIC_URL, e.g. http://localhost:4000. */
  toolgateUrl: string;
  /** 0 = any free port. */
  port?: number;
  host?: string;
  clientId?: string;
  /** Default: a random one. */
  clientSecret?: string;
  people?: DevPerson[];
  accessTokenTtlSeconds?: number;
}

export interface DevIdp {
  /** http://<host>:<bound port> */
  issuer: string;
  clientId: string;
  clientSecret: string;
  people: DevPerson[];
  close(): Promise<void>;
}

function person(login: string, name: string, group: string, tenant: 'acme' | 'globex'): DevPerson {
  return { sub: `person-${login}`, login, name, email: `${login}@${tenant}.test`, groups: [group], tenant };
}

export const DEMO_PEOPLE: readonly DevPerson[] = [
  person('ada', 'Ada Admin', 'toolgate-admins', 'acme'),
  person('grace', 'Grace Expert', 'toolgate-experts', 'acme'),
  person('edsger', 'Edsger Expert', 'toolgate-experts', 'acme'),
  person('claude', 'Claude Client', 'toolgate-clients', 'acme'),
  // In a group no role maps from: signs in, and Toolgate gives her nothing.
  person('mallory', 'Mallory Visitor', 'visitors', 'acme'),
  // Same group name as Grace, another tenant: an org bound to tenant acme must refuse her.
  person('olivia', 'Olivia Expert', 'toolgate-experts', 'globex'),
];

export const DEFAULT_CONSOLE_CLIENT_ID = 'toolgate-console';

/** The scope each of Toolgate's resources grants in its JWT access tokens. */
export function toolgateResources(toolgateUrl: string): Record<string, string> {
  const base = toolgateUrl.replace(/\/+$/, '');
  return { [`${base}/mcp`]: 'toolgate:agent', [`${base}/graphql`]: 'toolgate:api' };
}

/** The console's OIDC scopes, granted without a consent page (it is Toolgate's own client). */
const CONSOLE_SCOPES = 'openid profile email offline_access';

const DAY = 24 * 60 * 60;

/** POST /interaction/<uid>: the dev login form's (and consent form's) target. */
const INTERACTION_SUBMIT = /^\/interaction\/[^/]+$/;

export async function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  const { default: Provider, errors } = await import('oidc-provider');
  const toolgateUrl = options.toolgateUrl.replace(/\/+$/, '');
  const people = options.people ?? [...DEMO_PEOPLE];
  const clientId = options.clientId ?? DEFAULT_CONSOLE_CLIENT_ID;
  const clientSecret = options.clientSecret ?? crypto.randomBytes(24).toString('base64url');
  const accessTokenTtl = options.accessTokenTtlSeconds ?? 600;
  const resources = toolgateResources(toolgateUrl);

  // The issuer names the bound port, so the server listens before the provider exists.
  let handler: http.RequestListener = (_req, res) => void res.writeHead(503).end();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const issuer = `http://${host}:${address.port}`;

  const bySub = (sub: string) => people.find((p) => p.sub === sub);
  const { privateKey } = await generateSigningKey();

  const configuration: Configuration = {
    adapter: memoryStore(),
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        client_name: 'Toolgate console',
        redirect_uris: [`${toolgateUrl}/auth/callback`],
        post_logout_redirect_uris: [`${toolgateUrl}/console/`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [privateKey] },
    cookies: { keys: [crypto.randomBytes(32).toString('base64url')] },
    // groups and tenant come with `openid` itself, so a relying party asking for the usual
    // `openid profile email` maps a person without knowing extra scopes.
    claims: { openid: ['sub', 'groups', 'tenant'], profile: ['name'], email: ['email'] },
    // MCP clients register (RFC 7591 `scope`) with the scopes /mcp's metadata names, and
    // oidc-provider registers only scopes it knows: /mcp's is one (/graphql's is the console's).
    scopes: ['openid', 'offline_access', resources[`${toolgateUrl}/mcp`]],
    // The ID token of the code flow carries the claims too, not only userinfo.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    findAccount: (_ctx, sub) => {
      const found = bySub(sub);
      if (!found) return undefined;
      return { accountId: found.sub, claims: () => ({ ...found }) };
    },
    extraTokenClaims: (_ctx, token) => {
      // Only the JWTs of Toolgate's resources: the resource server maps the person from them.
      if (!('accountId' in token) || !token.resourceServer) return undefined;
      const found = bySub(token.accountId);
      return found && { name: found.name, email: found.email, groups: found.groups, tenant: found.tenant };
    },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    loadExistingGrant: (ctx) => loadGrant(ctx, clientId, resources),
    clientBasedCORS: (_ctx, origin, client) => client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) ?? false,
    renderError,
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // No resource named: no default. The access token is then oidc-provider's opaque
        // one for the userinfo endpoint (with `openid`), never a JWT for Toolgate.
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        // A resource named in the authorization request alone is enough (MCP clients repeat it).
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator): ResourceServer => {
          const scope = resources[indicator];
          if (scope === undefined)
            throw new errors.InvalidTarget(`the development issuer issues tokens for ${Object.keys(resources).join(' and ')} only`);
          return { scope, audience: indicator, accessTokenTTL: accessTokenTtl, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      ClientCredentials: accessTokenTtl,
      IdToken: 60 * 60,
      RefreshToken: DAY,
      Interaction: 60 * 60,
      Session: DAY,
      Grant: DAY,
    },
  };
  const provider = new Provider(issuer, configuration);

  // The dev login form accepts any login and makes it the subject; here a login is one of the
  // people (its stable sub becomes the session's account), anything else is refused.
  provider.use(async (ctx, next) => {
    if (ctx.method !== 'POST' || !INTERACTION_SUBMIT.test(ctx.path)) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res).catch(() => undefined);
    if (details?.prompt.name !== 'login') return next();
    const login = new URLSearchParams(await readForm(ctx.req)).get('login') ?? '';
    const found = people.find((p) => p.login === login);
    const result = found
      ? { login: { accountId: found.sub } }
      : { error: 'access_denied', error_description: `no person signs in as "${login}" on the development issuer` };
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(returnTo);
  });

  handler = provider.callback();
  return {
    issuer,
    clientId,
    clientSecret,
    people,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function generateSigningKey() {
  const { generateKeyPair, exportJWK } = await import('jose');
  const pair = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(pair.privateKey);
  return { privateKey: { ...jwk, alg: 'RS256', use: 'sig', kid: crypto.randomUUID() } };
}

/**
 * The console's grant is given at once with every scope it may ask (no consent page for
 * Toolgate's own client); other clients keep the grant their consent created.
 */
async function loadGrant(ctx: KoaContextWithOIDC, consoleClientId: string, resources: Record<string, string>) {
  const { client, session, result, provider } = ctx.oidc;
  if (!client || !session) return undefined;
  const grantId = (result?.consent as { grantId?: string } | undefined)?.grantId ?? session.grantIdFor(client.clientId);
  const existing = grantId ? await provider.Grant.find(grantId) : undefined;
  if (client.clientId !== consoleClientId) return existing;
  const grant = existing ?? new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
  grant.addOIDCScope(CONSOLE_SCOPES);
  for (const [indicator, scope] of Object.entries(resources)) grant.addResourceScope(indicator, scope);
  await grant.save();
  return grant;
}

async function readForm(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 16 * 1024) throw new Error('the login form is larger than 16 KiB');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
