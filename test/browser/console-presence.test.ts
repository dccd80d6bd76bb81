import type { Browser, Page } from 'playwright-core';
import { useDemoApp } from '../support/demo-fixture';
import { newOrg } from '../support/factories';
import { describeInBrowser, launchChromium, offlinePage, type OfflinePage } from './browser';

/**
 * Presence and notifications (issue 30, item 5), in chromium: reviewers with one approval
 * open see each other ("Also looking"), another org's reviewer sees nothing and is never
 * named, and a closed tab leaves; high-risk requests raise a browser notification only
 * after the reviewer opted in (remembered across a reload).
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1', ANTHROPIC_MAX_RETRIES: '0' };
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';

jest.setTimeout(120_000);

/** Replaces window.Notification with a recorder over the real one (whose permission the context grants). */
const NOTIFICATION_SPY = `(() => {
  const Real = window.Notification;
  window.__notifications = [];
  window.__permissionAsked = 0;
  class Recorder {
    static get permission() { return Real.permission; }
    static requestPermission() { window.__permissionAsked++; return Real.requestPermission(); }
    constructor(title, options) { window.__notifications.push({ title, body: options && options.body, tag: options && options.tag }); }
  }
  window.Notification = Recorder;
})();`;

describeInBrowser('console presence and notifications in chromium', () => {
  const demo = useDemoApp(ENV, { sandboxes: true, offlineModel: true, worker: true });
  let browser: Browser;
  const opened: OfflinePage[] = [];
  const origin = () => new URL(demo.app.url).origin;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    for (const { context } of opened.splice(0)) await context.close().catch(() => undefined);
  });

  async function inbox(key: string, prepare?: (tab: OfflinePage) => Promise<void>): Promise<OfflinePage> {
    const tab = await offlinePage(browser);
    opened.push(tab);
    await prepare?.(tab);
    await tab.page.goto(`${origin()}/console`);
    await tab.page.getByLabel('API key').fill(key);
    await tab.page.keyboard.press('Enter');
    await tab.page.getByRole('heading', { name: /Approvals/ }).waitFor();
    await tab.page.locator('[data-state="live"]').waitFor();
    return tab;
  }

  async function startRun(): Promise<string> {
    const res = await demo.app.gql<{ startAgentRun: { id: string } }>(
      'mutation($s: ID!, $m: String!) { startAgentRun(input: { specialistId: $s, message: $m }) { id } }',
      { key: demo.seed.keys.client, variables: { s: demo.seed.specialistId, m: INVOICE_REQUEST } },
    );
    if (!res.body.data) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data.startAgentRun.id;
  }

  /** A key as the console names it: its name, else its role and prefix. */
  const nameOf = async (key: string): Promise<string> => {
    const [row] = await demo.app
      .em()
      .execute<{ name: string | null; role: string; prefix: string }[]>(
        'select name, role, prefix from api_keys where starts_with(?, prefix) order by created_at desc limit 1',
        [key],
      );
    return row.name ?? `${row.role} key ${row.prefix}`;
  };

  const alsoLooking = (page: Page, runId: string) => page.locator('li.card', { hasText: runId.slice(0, 8) }).getByTestId('also-looking');

  test('two reviewers with one card open see each other; another org sees nothing; a closed tab leaves', async () => {
    const expert = await inbox(demo.seed.keys.expert);
    const admin = await inbox(demo.seed.keys.admin);
    const outsiderOrg = await newOrg(demo.app.em());
    const outsider = await inbox(outsiderOrg.keys.expert);
    const runId = await startRun();

    await expert.page.locator('li.card', { hasText: runId.slice(0, 8) }).waitFor();
    await admin.page.locator('li.card', { hasText: runId.slice(0, 8) }).waitFor();
    const [expertName, adminName] = [await nameOf(demo.seed.keys.expert), await nameOf(demo.seed.keys.admin)];
    await alsoLooking(expert.page, runId).getByText(`Also looking: ${adminName}`, { exact: true }).waitFor();
    await alsoLooking(admin.page, runId).getByText(`Also looking: ${expertName}`, { exact: true }).waitFor();

    // The other org's reviewer: no card, and never named on ours.
    await outsider.page.getByText('Nothing waits for approval.').waitFor();
    expect(await outsider.page.locator('li.card').count()).toBe(0);
    expect(await outsider.page.getByTestId('also-looking').count()).toBe(0);

    await admin.context.close();
    await alsoLooking(expert.page, runId).waitFor({ state: 'detached' });
    expect(await expert.page.getByTestId('also-looking').count()).toBe(0);
  });

  test('a high-risk request notifies only after the reviewer opted in, and the choice survives a reload', async () => {
    const grant = async (tab: OfflinePage) => {
      await tab.context.grantPermissions(['notifications'], { origin: origin() });
      await tab.context.addInitScript(NOTIFICATION_SPY);
    };
    const tab = await inbox(demo.seed.keys.expert, grant);
    const { page } = tab;
    const notifications = () => page.evaluate<{ title: string; body: string; tag: string }[]>('window.__notifications');

    // Not opted in: a high-risk request arrives, nothing is asked or shown.
    const before = await startRun();
    await page.locator('li.card', { hasText: before.slice(0, 8) }).waitFor();
    expect(await notifications()).toEqual([]);
    expect(await page.evaluate('window.__permissionAsked')).toBe(0);

    await page.getByRole('button', { name: 'Notify me of high-risk requests' }).click();
    await page.getByRole('button', { name: 'Stop high-risk notifications' }).waitFor();
    expect(await page.evaluate('window.__permissionAsked')).toBe(1);
    expect(await page.evaluate('localStorage.getItem("toolgate.notifyHighRisk")')).toBe('on');

    const runId = await startRun();
    await page.locator('li.card', { hasText: runId.slice(0, 8) }).waitFor();
    await page.waitForFunction('window.__notifications.length > 0');
    const [shown] = await notifications();
    expect(shown.title).toBe('High-risk approval: invoice.send');
    expect(shown.body).toBe(`Run ${runId.slice(0, 8)} waits for expert approval.`);

    // After a reload the opt-in holds, without asking again.
    await page.reload();
    await page.locator('[data-state="live"]').waitFor();
    await page.getByRole('button', { name: 'Stop high-risk notifications' }).waitFor();
    const next = await startRun();
    await page.locator('li.card', { hasText: next.slice(0, 8) }).waitFor();
    await page.waitForFunction('window.__notifications.length > 0');
    expect((await notifications()).map((n) => n.body)).toEqual([`Run ${next.slice(0, 8)} waits for expert approval.`]);
    expect(await page.evaluate('window.__permissionAsked')).toBe(0);
  });
});
