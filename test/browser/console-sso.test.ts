import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startSsoFlow, type SsoFlow } from '../support/sso';
import { ledgerOf, waitingCall } from '../approvals/approval-flow';
import { buildWebhookPayload } from '../../src/webhooks/webhook-payload';
import { describeInBrowser, launchChromium, offlinePage, type OfflinePage } from './browser';

/**
 * The console's single sign-on in a real chromium: the sign-in page sends the browser to the
 * development issuer (src/identity/dev-idp.ts), the person types a login there, and comes
 * back to the console signed in with the session cookie (no key anywhere). Every request to
 * another host is aborted. Set CONSOLE_SCREENSHOTS=1 to write docs/console-sso.png.
 */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';
const DOCS = path.join(__dirname, '..', '..', 'docs');

jest.setTimeout(120_000);

describeInBrowser('console single sign-on in chromium', () => {
  let flow: SsoFlow;
  let browser: Browser;
  const opened: OfflinePage[] = [];

  beforeAll(async () => {
    flow = await startSsoFlow();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await flow?.close();
  });
  afterEach(async () => {
    for (const { context } of opened.splice(0)) await context.close();
  });

  async function open(): Promise<OfflinePage> {
    const tab = await offlinePage(browser);
    opened.push(tab);
    return tab;
  }

  /** From the console's sign-in page through the issuer's login form, as a person would. */
  async function signInWithSso({ page }: OfflinePage, login: string, role?: string): Promise<void> {
    await page.goto(`${flow.publicUrl}/console/`);
    await page.getByLabel('Organization').fill('demo');
    if (SCREENSHOTS && login === 'grace' && !role) await page.screenshot({ path: path.join(DOCS, 'console-sso-signin.png') });
    if (role) await page.getByLabel('Role').selectOption(role);
    await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
    const loginField = page.locator('input[name="login"]');
    await loginField.waitFor();
    expect(new URL(page.url()).origin).toBe(new URL(flow.idp.issuer).origin);
    await loginField.fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('button[type="submit"]').click();
  }

  const sessionStatus = async ({ context }: OfflinePage) => (await context.request.get(`${flow.publicUrl}/auth/session`)).status();

  test('an expert signs in through the issuer, approves from the inbox as herself, and signs out', async () => {
    const tab = await open();
    const { page } = tab;
    await signInWithSso(tab, 'grace');
    await page.getByLabel('Signed in as').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/');
    await expect(page.getByLabel('Signed in as').textContent()).resolves.toBe('Grace Expert · expert');
    // No key was typed or kept: the session is the HTTP-only cookie, out of the page's reach.
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    expect(await page.evaluate<string>('document.cookie')).not.toContain('toolgate_session');
    await page.getByRole('heading', { name: /Approvals/ }).waitFor();

    // It arrives live, over graphql-ws opened with the session's CSRF token.
    const { runId } = await waitingCall(flow, 'expert');
    const card = page.getByRole('listitem', { name: /invoice\.send/ });
    await card.waitFor();
    // Who may resolve it, in a person's words (a key's console says "expert keys").
    await expect(card.locator('dt', { hasText: 'Resolved by' }).locator('xpath=following-sibling::dd[1]').textContent()).resolves.toBe('experts');
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'console-sso.png'), fullPage: true });
    await card.getByLabel('Reason').fill('checked with the customer');
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.waitFor({ state: 'detached' });

    await page.goto(`${flow.publicUrl}/console/#/runs/${runId}`);
    const timeline = page.getByLabel('Tool-call timeline');
    await timeline.getByText('Resolved by Grace Expert (SSO)').waitFor();
    await expect(timeline.textContent()).resolves.toContain('expert approval approved');

    const approved = (await ledgerOf(flow.app, runId)).find((e) => e.type === 'tool_call.approved')!;
    expect((approved.metadata.person as { subject: string }).subject).toBe('person-grace');
    const payload = await buildWebhookPayload(flow.app.em(), 'approval.resolved', approved.id);
    expect(payload.data.resolvedBy).toMatchObject({ type: 'person', subject: 'person-grace', name: 'Grace Expert', role: 'expert' });

    // Sign out: the session ends at Toolgate, then the issuer's sign-out brings the browser back.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Yes, sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/');
    expect(await sessionStatus(tab)).toBe(401);
    // The development issuer's login page (oidc-provider's) asks for a Google font; the console asks nothing outside.
    expect(tab.blocked.filter((url) => !url.startsWith('https://fonts.googleapis.com/'))).toEqual([]);
    // The one console error is that font's abort.
    expect(tab.consoleErrors.filter((text) => !text.includes('ERR_BLOCKED_BY_CLIENT'))).toEqual([]);
  });

  /** Signs the tab's person out from elsewhere in the same browser (another tab: the same cookie). */
  async function signOutElsewhere({ context }: OfflinePage): Promise<void> {
    const session = (await (await context.request.get(`${flow.publicUrl}/auth/session`)).json()) as { csrfToken: string };
    const out = await context.request.post(`${flow.publicUrl}/auth/logout`, {
      headers: { 'x-csrf-token': session.csrfToken, origin: flow.publicUrl },
    });
    expect(out.status()).toBe(200);
  }

  test('a session ended elsewhere sends the console back to the sign-in page at its next request', async () => {
    const tab = await open();
    const { page } = tab;
    await signInWithSso(tab, 'edsger');
    // The runs list holds no subscription, so no socket is open to be closed: the next request finds out.
    await page.goto(`${flow.publicUrl}/console/#/runs`);
    await page.getByRole('heading', { name: /Runs/ }).waitFor();
    await signOutElsewhere(tab);

    await page.getByRole('link', { name: 'Ledger' }).click();
    await page.getByLabel('API key').waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('session has ended');
  });

  test('a session ended elsewhere closes the open inbox’s live connection, and the console signs out at once', async () => {
    const tab = await open();
    const { page } = tab;
    await signInWithSso(tab, 'edsger');
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
    await signOutElsewhere(tab);

    await page.getByLabel('API key').waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('session has ended');
  });

  test('a person whose groups give no role sees the refusal page, and is not signed in', async () => {
    const tab = await open();
    const { page } = tab;
    const callback = page.waitForResponse((response) => new URL(response.url()).pathname === '/auth/callback');
    await signInWithSso(tab, 'mallory');
    expect((await callback).status()).toBe(403);
    await expect(page.locator('#code').textContent()).resolves.toBe('FORBIDDEN');
    expect(await sessionStatus(tab)).toBe(401);
  });

  test('the role picker asks for one role: a person without it is refused with the reason', async () => {
    const tab = await open();
    const { page } = tab;
    const login = page.waitForRequest((request) => new URL(request.url()).pathname === '/auth/login');
    const callback = page.waitForResponse((response) => new URL(response.url()).pathname === '/auth/callback');
    await signInWithSso(tab, 'grace', 'client');
    expect(new URL((await login).url()).searchParams.get('role')).toBe('client');
    expect((await callback).status()).toBe(403);
    await expect(page.locator('#message').textContent()).resolves.toContain('You do not have the client role');
  });
});
