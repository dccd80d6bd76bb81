import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api } from './api';
import { ViewerDocument, type ViewerQuery } from '../../gql/graphql';
import { capabilitiesOf, type Capabilities } from './roles';
import { forgetKey, storeKey, storedKey } from './session';
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

function SignIn({ onSignedIn }: { onSignedIn: (key: string, viewer: Viewer) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { viewer } = await new Api(key.trim()).request(ViewerDocument, {});
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
    </main>
  );
}

function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => storedKey() !== null);
  const [restoreError, setRestoreError] = useState<unknown>(null);
  const route = useRoute();

  const open = (key: string, viewer: Viewer) => {
    storeKey(key);
    setSession({ api: new Api(key), viewer, can: capabilitiesOf(viewer.role) });
  };
  useEffect(() => {
    const key = storedKey();
    if (!key) return;
    new Api(key)
      .request(ViewerDocument, {})
      .then((data) => open(key, data.viewer))
      .catch((error) => {
        forgetKey();
        setRestoreError(error);
      })
      .finally(() => setRestoring(false));
  }, []);
  const signOut = () => {
    session?.api.close();
    forgetKey();
    setSession(null);
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
        <span class="who" role="note" aria-label="Signed in as">
          {session.viewer.org.name} · <span class="role">{session.viewer.role}</span>
        </span>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {!allowed ? (
          <p role="alert">
            <code>FORBIDDEN</code> A {session.viewer.role} key cannot open this view.
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
