import type { Browser, Locator } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { useDemoApp } from '../support/demo-fixture';
import { seedDemo } from '../../src/seed/demo-seed';
import { ViewerDocument } from '../../gql/graphql';
import { describeInBrowser, launchChromium, offlinePage, type OfflinePage } from './browser';

/**
 * GET /graphql in a browser: the bundled GraphiQL (Ruru) from this server only, with every
 * request to another origin aborted; a query and a subscription run through it with the
 * key typed into the pre-filled headers editor.
 */
jest.setTimeout(90_000);

describeInBrowser('GraphiQL at /graphql in chromium, offline', () => {
  const demo = useDemoApp({}, { sandboxes: true });
  let browser: Browser;
  let tab: OfflinePage;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await tab?.context.close();
  });

  /** Replaces an editor's text: select all, then insert (no auto-closed brackets). */
  async function setEditor(editor: Locator, text: string): Promise<void> {
    await editor.click();
    await tab.page.keyboard.press('Control+A');
    await tab.page.keyboard.press('Delete');
    await tab.page.keyboard.insertText(text);
  }

  const result = (text: RegExp) => tab.page.locator('.result-window').filter({ hasText: text }).waitFor({ timeout: 20_000 });
  const queryEditor = () => tab.page.locator('.graphiql-query-editor .monaco-editor');
  const headersEditor = () => tab.page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor');

  test('loads fully with other origins blocked, headers pre-filled; runs a query and a subscription', async () => {
    tab = await offlinePage(browser);
    const { page } = tab;
    const response = await page.goto(demo.app.url);
    expect(response!.headers()['content-type']).toContain('text/html');
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");

    // The headers editor (shown at start) holds the Authorization header to complete.
    const execute = page.getByRole('button', { name: /execute query/i });
    await execute.waitFor({ timeout: 30_000 });
    await headersEditor()
      .filter({ hasText: /"Authorization":\s*"Bearer\s"/ })
      .waitFor();

    await setEditor(headersEditor(), JSON.stringify({ Authorization: `Bearer ${demo.seed.keys.admin}` }));
    await setEditor(queryEditor(), '{ viewer { role org { name } } }');
    await execute.click();
    await result(/"role":\s*"admin"/);

    // A subscription over graphql-ws (the headers become its connection params): a run's
    // events from the start (GraphiQL shows the latest: the subscription is live), then its
    // cancellation.
    const started = await demo.app.gql<{ startAgentRun: { id: string } }>(
      'mutation($s: ID!) { startAgentRun(input: { specialistId: $s, driver: EXTERNAL }) { id } }',
      { key: demo.seed.keys.agent, variables: { s: demo.seed.specialistId } },
    );
    const runId = started.body.data!.startAgentRun.id;
    await setEditor(queryEditor(), `subscription { runEvents(runId: "${runId}", afterSequence: "0") { type } }`);
    // GraphiQL picks the transport from its parse of the editor, which follows typing after a
    // debounce: run at once, the subscription may still go over HTTP, which answers its code
    // (SUBSCRIPTION_OVER_HTTP, never a 500). Then it is run again, over graphql-ws.
    let refusedOverHttp = 0;
    for (let attempt = 1; ; attempt++) {
      await execute.click();
      const answered = tab.page.locator('.result-window').filter({ hasText: /"type":\s*"run\.(created|started)"|SUBSCRIPTION_OVER_HTTP/ });
      await answered.waitFor({ timeout: 20_000 });
      if (!(await answered.textContent())?.includes('SUBSCRIPTION_OVER_HTTP')) break;
      refusedOverHttp += 1;
      expect(attempt).toBeLessThan(5);
    }
    await result(/"type":\s*"run\.(created|started)"/);
    const cancelled = await demo.app.gql('mutation($id: ID!) { cancelRun(runId: $id) { status } }', {
      key: demo.seed.keys.agent,
      variables: { id: runId },
    });
    expect(cancelled.body.data).toEqual({ cancelRun: { status: 'cancelled' } });
    await result(/"type":\s*"run\.cancelled"/);

    expect(tab.blocked).toEqual([]);
    // The schema fetch before a key was typed is refused (401), a subscription run before GraphiQL parsed it 400; nothing else failed.
    const expected = [`401 ${demo.app.url}`, ...(refusedOverHttp > 0 ? [`400 ${demo.app.url}`] : [])];
    expect(tab.failures.filter((f) => !expected.includes(f))).toEqual([]);
  });
});

describe('GraphQL IDE setting', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  test('GRAPHQL_IDE=false: a browser GET of /graphql gets no IDE; a persisted GET still answers', async () => {
    app = await startTestApp({ GRAPHQL_IDE: 'false' });
    const page = await fetch(app.url, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).not.toContain('text/html');
    expect((await fetch(`${new URL(app.url).origin}/graphql-ide/ruru.js`)).status).toBe(404);
    const seed = await seedDemo(app.em(), app.masterKey);
    const documentId = (ViewerDocument as unknown as { __meta__: { hash: string } }).__meta__.hash;
    const persisted = await fetch(`${app.url}?documentId=${encodeURIComponent(documentId)}`, {
      headers: { accept: 'application/json', authorization: `Bearer ${seed.keys.expert}`, 'apollo-require-preflight': 'true' },
    });
    expect(((await persisted.json()) as { data: { viewer: { role: string } } }).data.viewer.role).toBe('expert');
  });

  test('on by default outside production: the page and its assets come from this server', async () => {
    app = await startTestApp();
    const page = await fetch(app.url, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>(?!<)/);
    const init = await fetch(`${new URL(app.url).origin}/graphql-ide/init.js`);
    expect(await init.text()).toContain('Bearer ');
    const ruru = await fetch(`${new URL(app.url).origin}/graphql-ide/ruru.js`);
    expect(ruru.status).toBe(200);
    // A JSON client's GET is the API, not the page.
    const api = await fetch(`${app.url}?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/json' } });
    expect(api.headers.get('content-type')).toContain('application/json');
  });
});
