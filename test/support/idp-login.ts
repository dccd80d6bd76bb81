/**
 * Signs a person in at the development issuer (src/identity/dev-idp.ts) over plain HTTP, as
 * a browser would but without one: follows the issuer's redirects with a cookie jar, fills
 * its login form (and its consent form when it shows), and stops at the redirect back to the
 * client, which it returns unfetched with its `code` and `state` (or `error`).
 */
export interface SignInResult {
  /** The redirect to the client's redirect_uri, as the issuer sent it. */
  redirect: URL;
  code: string | null;
  state: string | null;
  /** `access_denied` when the issuer refused the login (an unknown person). */
  error: string | null;
  errorDescription: string | null;
  /** The interaction pages submitted on the way, in order. */
  prompts: Array<'login' | 'consent'>;
}

interface Cookie {
  value: string;
  path: string;
}

/** The issuer's cookies, by name; pass one jar to several sign-ins to reuse the issuer's session. */
export class IdpCookies {
  private readonly cookies = new Map<string, Cookie>();

  header(url: URL): string {
    return [...this.cookies]
      .filter(([, c]) => url.pathname.startsWith(c.path))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      const attribute = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const expires = attribute('expires');
      const gone = value === '' || attribute('max-age') === '0' || (expires !== undefined && Date.parse(expires) <= Date.now());
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, { value, path: attribute('path') ?? '/' });
    }
  }
}

const MAX_STEPS = 12;

export async function signIn(
  authorizationUrl: URL | string,
  login: string,
  options: { password?: string; cookies?: IdpCookies } = {},
): Promise<SignInResult> {
  const cookies = options.cookies ?? new IdpCookies();
  const issuerOrigin = new URL(authorizationUrl).origin;
  const prompts: SignInResult['prompts'] = [];
  let url = new URL(authorizationUrl);
  let form: URLSearchParams | undefined;

  for (let step = 0; step < MAX_STEPS; step++) {
    const headers: Record<string, string> = { cookie: cookies.header(url) };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, { method: form ? 'POST' : 'GET', headers, body: form?.toString(), redirect: 'manual' });
    cookies.take(response);
    form = undefined;

    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      url = new URL(location, url);
      if (url.origin !== issuerOrigin) return result(url, prompts);
      continue;
    }
    const page = await response.text();
    const prompt = /name="prompt" value="(login|consent)"/.exec(page)?.[1] as 'login' | 'consent' | undefined;
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (response.status !== 200 || !prompt || !action) {
      throw new Error(`the issuer answered ${response.status} at ${url.pathname} with no login or consent form:\n${page.slice(0, 2000)}`);
    }
    prompts.push(prompt);
    url = new URL(action.replace(/&amp;/g, '&'), url);
    form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: options.password ?? 'any password' } : { prompt });
  }
  throw new Error(`no redirect back to the client after ${MAX_STEPS} requests at the issuer`);
}

function result(redirect: URL, prompts: SignInResult['prompts']): SignInResult {
  // The error response may come in the query (code flow) or, for some response modes, the fragment.
  const params = redirect.hash ? new URLSearchParams(redirect.hash.slice(1)) : redirect.searchParams;
  return {
    redirect,
    code: params.get('code'),
    state: params.get('state'),
    error: params.get('error'),
    errorDescription: params.get('error_description'),
    prompts,
  };
}
