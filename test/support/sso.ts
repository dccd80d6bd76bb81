import { freePort } from './processes';
import { startDevIdp, type DevIdp, type DevPerson } from '../../src/identity/dev-idp';
import { setIdentityBinding, type IdentityBindingInput } from '../../src/identity/identity-bindings';
import { SESSION_COOKIE } from '../../src/identity/sessions';
import { startFlow, type Flow } from '../approvals/approval-flow';
import { IdpCookies, signIn } from './idp-login';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { GqlOptions, GraphQLResponse } from './app';

/** The demo org bound to the development issuer: acme's groups give the three roles. */
export const DEMO_BINDING: IdentityBindingInput = {
  issuerName: 'dev',
  tenantClaim: 'tenant',
  tenantValue: 'acme',
  roleClaim: 'groups',
  roleMap: { admin: ['toolgate-admins'], expert: ['toolgate-experts'], client: ['toolgate-clients'] },
  agentScope: 'toolgate:agent',
};

/** A person signed in to the console: their session cookie and its CSRF token. */
export interface PersonSession {
  cookie: string;
  csrfToken: string;
  /** Headers of a console request: the cookie, the CSRF token, the console's origin. */
  headers(extra?: Record<string, string>): Record<string, string>;
}

export interface SsoFlow extends Flow {
  idp: DevIdp;
  publicUrl: string;
  /** Starts a sign-in at /auth/login and follows it through the issuer; returns the callback's answer. */
  attemptSignIn(login: string, options?: { role?: string; org?: string }): Promise<Response>;
  signInAs(login: string, options?: { role?: string }): Promise<PersonSession>;
  /** One POST of a GraphQL document with a person's session. */
  gqlAs<R, V>(session: PersonSession, document: TypedDocumentNode<R, V>, options?: GqlOptions<V>): Promise<GraphQLResponse<R>>;
  close(): Promise<void>;
}

/**
 * The approval flow (the demo org, sandboxes, the flow's rule) on a Toolgate that knows the
 * development issuer (OIDC_ISSUERS, PUBLIC_URL on a port chosen before both start), with the
 * demo org bound to it (DEMO_BINDING unless `binding` says otherwise).
 */
export async function startSsoFlow(
  options: {
    env?: Record<string, string>;
    binding?: IdentityBindingInput | null;
    app?: Parameters<typeof startFlow>[1];
    /** The issuer's people (default DEMO_PEOPLE). */
    people?: DevPerson[];
  } = {},
): Promise<SsoFlow> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const idp = await startDevIdp({ toolgateUrl: publicUrl, port: 0, people: options.people });
  let flow: Flow;
  try {
    flow = await startFlow(
      {
        PORT: String(port),
        PUBLIC_URL: publicUrl,
        OIDC_ISSUERS: JSON.stringify([{ name: 'dev', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret }]),
        ...options.env,
      },
      options.app,
    );
  } catch (error) {
    await idp.close();
    throw error;
  }
  if (options.binding !== null) {
    await setIdentityBinding(flow.app.em(), flow.app.services.identity.issuers, flow.orgId, null, options.binding ?? DEMO_BINDING);
  }

  const attemptSignIn = async (login: string, opts: { role?: string; org?: string } = {}) => {
    const params = new URLSearchParams({ org: opts.org ?? 'demo' });
    if (opts.role) params.set('role', opts.role);
    const start = await fetch(`${publicUrl}/auth/login?${params}`, { redirect: 'manual' });
    if (start.status !== 302) return start;
    const browser = start.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const answer = await signIn(start.headers.get('location')!, login, { cookies: new IdpCookies() });
    return fetch(answer.redirect, { redirect: 'manual', headers: { cookie: browser } });
  };

  const signInAs = async (login: string, opts: { role?: string } = {}): Promise<PersonSession> => {
    const back = await attemptSignIn(login, opts);
    if (back.status !== 303) throw new Error(`sign-in of ${login} answered ${back.status}: ${await back.text()}`);
    const cookie = back.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    const session = (await (await fetch(`${publicUrl}/auth/session`, { headers: { cookie } })).json()) as { csrfToken: string };
    return {
      cookie,
      csrfToken: session.csrfToken,
      headers: (extra = {}) => ({ cookie, 'x-csrf-token': session.csrfToken, origin: publicUrl, ...extra }),
    };
  };

  return {
    ...flow,
    get app() {
      return flow.app;
    },
    idp,
    publicUrl,
    attemptSignIn,
    signInAs,
    gqlAs: (session, document, opts = {}) =>
      flow.app.gql(document, { ...opts, key: null, headers: { ...session.headers(), ...(opts.headers ?? {}) } }),
    close: async () => {
      await flow.app.close();
      await idp.close();
    },
  };
}
