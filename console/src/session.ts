import { ApiError } from './api';

/** The API key lives in sessionStorage: this tab only, gone when it closes, never in a URL. */
const KEY = 'toolgate.console.apiKey';

export const storedKey = (): string | null => sessionStorage.getItem(KEY);
export const storeKey = (key: string): void => sessionStorage.setItem(KEY, key);
export const forgetKey = (): void => sessionStorage.removeItem(KEY);

/**
 * The organization this browser last signed in to with single sign-on (localStorage: the
 * session cookie outlives the tab too). While it is set the console asks /auth/session on
 * load; without it a key user's console makes no request that can only answer 401.
 */
const SSO_ORG = 'toolgate.console.ssoOrg';

export const ssoOrg = (): string | null => localStorage.getItem(SSO_ORG);
export const rememberSsoOrg = (org: string): void => localStorage.setItem(SSO_ORG, org);
export const forgetSsoOrg = (): void => localStorage.removeItem(SSO_ORG);

/** `GET /auth/session`: who is signed in with single sign-on (src/identity/auth-routes.ts). */
export interface PersonSession {
  person: { name: string; email: string | null; issuer: string; subject: string };
  org: { id: string; name: string; slug: string | null };
  role: string;
  csrfToken: string;
  expiresAt: string;
}

/** The signed-in person's session, or null when there is none (401) or it cannot be read. */
export async function readPersonSession(): Promise<PersonSession | null> {
  const response = await fetch('/auth/session', { headers: { accept: 'application/json' } });
  if (response.status === 401) return null;
  if (!response.ok) throw new ApiError(`HTTP_${response.status}`, 'The sign-in could not be read: reload to try again');
  return (await response.json()) as PersonSession;
}

/** `POST /auth/logout`: ends the session; the issuer's logout URL (back to the console) to go to next. */
export async function signOutPerson(csrfToken: string): Promise<string> {
  const response = await fetch('/auth/logout', { method: 'POST', headers: { 'x-csrf-token': csrfToken } });
  // Already over (expired, signed out in another tab): nothing to end here, back to the sign-in page.
  if (response.status === 401) return '/console/';
  const body = (await response.json()) as { logoutUrl?: string; error?: { code: string; message: string } };
  if (!response.ok || !body.logoutUrl)
    throw new ApiError(body.error?.code ?? `HTTP_${response.status}`, body.error?.message ?? 'The sign-out failed');
  return body.logoutUrl;
}
