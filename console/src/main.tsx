import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, ApiError } from './api';
import { ViewerDocument, type ViewerQuery } from '../../gql/graphql';
import { capabilitiesOf, type Capabilities } from './roles';
import {
  forgetKey,
  forgetSsoOrg,
  readPersonSession,
  rememberSsoOrg,
  signOutPerson,
  ssoOrg,
  storeKey,
  storedKey,
  type PersonSession,
} from './session';
import { ErrorNote } from './ui';
import { Inbox } from './views/inbox';
import { ReviewQueue } from './views/review-queue';
import { Runs } from './views/runs';
import { RunPage } from './views/run-page';
import { Ledger } from './views/ledger';
import { Policy } from './views/policy';

type Viewer = ViewerQuery['viewer'];

export interface Session {
  api: Api;
  viewer: Viewer;
  can: Capabilities;
  /** Signed in with single sign-on (null: with an API key). */
  person: PersonSession | null;
}

/** The view from the URL fragment: #/inbox, #/review, #/runs, #/runs/<id>, #/ledger, #/policy. */
function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** A person's roles, when they have several: which one this sign-in takes (none asked: the first, admin before expert before client). */
const SSO_ROLES = ['admin', 'expert', 'client'] as const;

/**
 * "Sign in with single sign-on": a plain navigation to /auth/login (no form post, whose
 * redirect to the issuer the console's `form-action 'self'` would block), which goes to the
 * organization's issuer and comes back to /console/ with the session cookie.
 */
function SingleSignOn() {
  const [org, setOrg] = useState(() => ssoOrg() ?? '');
  const [role, setRole] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    const slug = org.trim();
    rememberSsoOrg(slug);
    const params = new URLSearchParams({ org: slug });
    if (role) params.set('role', role);
    location.assign(`/auth/login?${params}`);
  };
  return (
    <form onSubmit={submit} aria-label="Single sign-on">
      <h2>Single sign-on</h2>
      <label for="sso-org">Organization</label>
      <input
        id="sso-org"
        autocomplete="organization"
        spellcheck={false}
        required
        value={org}
        onInput={(e) => setOrg((e.target as HTMLInputElement).value)}
        placeholder="acme"
      />
      <label for="sso-role">Role</label>
      <select id="sso-role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
        <option value="">The first my groups give</option>
        {SSO_ROLES.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <p class="hint">Signs you in at your organization's identity provider; the session is an HTTP-only cookie.</p>
      <button type="submit" disabled={org.trim() === ''}>
        Continue with single sign-on
      </button>
    </form>
  );
}

function SignIn({ onSignedIn }: { onSignedIn: (key: string, viewer: Viewer) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { viewer } = await new Api({ key: key.trim() }).request(ViewerDocument, {});
      onSignedIn(key.trim(), viewer);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>Toolgate console</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          placeholder="tg_expert_…"
        />
        <p class="hint">Kept in this tab only (sessionStorage) and sent as a Bearer header.</p>
        <button type="submit" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorNote error={error} />
      <SingleSignOn />
    </main>
  );
}

/** The session ended under the console (expired, signed out elsewhere): said on the sign-in page. */
const SESSION_ENDED = new ApiError('UNAUTHENTICATED', 'Your single sign-on session has ended: sign in again');

function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => storedKey() !== null || ssoOrg() !== null);
  const [restoreError, setRestoreError] = useState<unknown>(null);
  const route = useRoute();

  const open = (key: string, viewer: Viewer) => {
    storeKey(key);
    setSession({ api: new Api({ key }), viewer, can: capabilitiesOf(viewer.role), person: null });
  };
  /** Back to the sign-in page, the person's session gone (asked again: a refused socket may be only its CSRF token). */
  const endedElsewhere = () => {
    readPersonSession()
      .catch(() => null)
      .then((still) => {
        if (still) return;
        forgetSsoOrg();
        setSession((current) => {
          current?.api.close();
          return null;
        });
        setRestoreError(SESSION_ENDED);
      });
  };
  const openPerson = async (person: PersonSession) => {
    const api = new Api({ csrfToken: person.csrfToken }, endedElsewhere);
    const { viewer } = await api.request(ViewerDocument, {});
    setSession({ api, viewer, can: capabilitiesOf(viewer.role), person });
  };
  useEffect(() => {
    const key = storedKey();
    if (key) {
      new Api({ key })
        .request(ViewerDocument, {})
        .then((data) => open(key, data.viewer))
        .catch((error) => {
          forgetKey();
          setRestoreError(error);
        })
        .finally(() => setRestoring(false));
      return;
    }
    if (ssoOrg() === null) return;
    readPersonSession()
      .then((person) => {
        if (person) return openPerson(person);
        forgetSsoOrg();
      })
      .catch(setRestoreError)
      .finally(() => setRestoring(false));
  }, []);
  const signOut = async () => {
    if (!session) return;
    session.api.close();
    forgetKey();
    if (!session.person) {
      setSession(null);
      return;
    }
    try {
      const logoutUrl = await signOutPerson(session.person.csrfToken);
      forgetSsoOrg();
      // The issuer's sign-out, which comes back to /console/ (a plain navigation, like the sign-in).
      location.assign(logoutUrl);
    } catch (error) {
      setRestoreError(error);
      setSession(null);
    }
  };

  const nav = useMemo(() => {
    if (!session) return [];
    const items: [string, string][] = [];
    if (session.can.inbox) items.push(['inbox', 'Approvals']);
    if (session.can.audit) items.push(['review', 'For review']);
    items.push(['runs', 'Runs']);
    if (session.can.audit) items.push(['ledger', 'Ledger'], ['policy', 'Policy']);
    return items;
  }, [session]);

  if (restoring) return <p class="loading">Signing in…</p>;
  if (!session)
    return (
      <>
        <SignIn onSignedIn={open} />
        <ErrorNote error={restoreError} />
      </>
    );

  const [view = nav[0][0], id] = route;
  const allowed = nav.some(([name]) => name === view);
  const person = session.viewer.person ?? null;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <strong class="brand">Toolgate</strong>
        <nav aria-label="Views">
          {nav.map(([name, label]) => (
            <a key={name} href={`#/${name}`} aria-current={view === name ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        {person ? (
          <span class="who" role="note" aria-label="Signed in as" title={`${session.viewer.org.name}, single sign-on`}>
            {person.name ?? person.subject} · <span class="role">{session.viewer.role}</span>
          </span>
        ) : (
          <span class="who" role="note" aria-label="Signed in as">
            {session.viewer.org.name} · <span class="role">{session.viewer.role}</span>
          </span>
        )}
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {!allowed ? (
          <p role="alert">
            <code>FORBIDDEN</code> A {session.viewer.role} {person ? 'person' : 'key'} cannot open this view.
          </p>
        ) : view === 'inbox' ? (
          <Inbox session={session} />
        ) : view === 'review' ? (
          <ReviewQueue session={session} />
        ) : view === 'runs' && id ? (
          // Keyed by the run: a new run id is a new page, nothing of the previous one stays.
          <RunPage key={id} session={session} runId={id} />
        ) : view === 'runs' ? (
          <Runs session={session} />
        ) : view === 'ledger' ? (
          <Ledger session={session} />
        ) : (
          <Policy session={session} />
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
