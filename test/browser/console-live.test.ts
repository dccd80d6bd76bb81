import type { Browser } from 'playwright-core';
import { useDemoApp } from '../support/demo-fixture';
import { TcpProxy } from '../support/tcp-proxy';
import { newRun, newToolCall, type TestOrg } from '../support/factories';
import type { Org } from '../../src/orgs/org.entity';
import type { Specialist } from '../../src/orgs/specialist.entity';
import { describeInBrowser, launchChromium, offlinePage, type OfflinePage } from './browser';

/**
 * The console where the network, other reviewers and time do not behave: run pages visited
 * one after another, a live connection cut while an approval is created, an item resolved
 * by someone else while a reviewer types, an approval that expires on screen, a filter that
 * fails. Every request goes through a TCP proxy the test can cut (the browser sees the
 * proxy's origin as the console's).
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1', ANTHROPIC_MAX_RETRIES: '0' };
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';

jest.setTimeout(120_000);

describeInBrowser('console under drops, races and expiry (chromium)', () => {
  const demo = useDemoApp(ENV, { sandboxes: true, offlineModel: true, worker: true });
  const proxy = new TcpProxy();
  let browser: Browser;
  let origin: string;
  const opened: OfflinePage[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    const target = new URL(demo.app.url);
    origin = `http://127.0.0.1:${await proxy.start(target.hostname, Number(target.port))}`;
  });
  afterAll(async () => {
    await browser?.close();
    await proxy.stop();
  });
  afterEach(async () => {
    proxy.resume();
    for (const { context } of opened.splice(0)) await context.close();
  });

  async function open(): Promise<OfflinePage> {
    const page = await offlinePage(browser);
    opened.push(page);
    return page;
  }

  async function signIn({ page }: OfflinePage, key: string, view = ''): Promise<void> {
    await page.goto(`${origin}/console${view}`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Signed in as').waitFor();
  }

  async function startRun(message: string): Promise<string> {
    const res = await demo.app.gql<{ startAgentRun: { id: string } }>(
      'mutation($s: ID!, $m: String!) { startAgentRun(input: { specialistId: $s, message: $m }) { id } }',
      { key: demo.seed.keys.client, variables: { s: demo.seed.specialistId, m: message } },
    );
    if (!res.body.data) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data.startAgentRun.id;
  }

  async function runReply(runId: string): Promise<string> {
    for (;;) {
      const res = await demo.app.gql<{ run: { status: string; reply: string | null } }>('query($id: ID!) { run(id: $id) { status reply } }', {
        key: demo.seed.keys.expert,
        variables: { id: runId },
      });
      const run = res.body.data!.run;
      if (run.status === 'completed') return run.reply ?? '';
      if (run.status === 'failed') throw new Error(`run ${runId} failed`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  test('run A → run B → Back, twice: each page shows only its own run', async () => {
    const a = await startRun('Where is my order #12345?');
    const b = await startRun(INVOICE_REQUEST);
    const replyA = await runReply(a);
    const tab = await open();
    const { page } = tab;
    await signIn(tab, demo.seed.keys.expert, `#/runs/${a}`);
    const streamed = page.getByTestId('streamed-text');
    const timeline = page.getByLabel('Tool-call timeline');
    let textA = '';
    const showsA = async () => {
      await page.locator('h1 code', { hasText: a.slice(0, 8) }).waitFor();
      await timeline.getByText('order_lookup.lookup').waitFor();
      await streamed.getByText(replyA, { exact: false }).waitFor();
      // The run's whole streamed text, once: every later visit shows exactly it again.
      textA ||= (await streamed.textContent()) ?? '';
      await expect(streamed.textContent()).resolves.toBe(textA);
      await expect(timeline.textContent()).resolves.not.toContain('invoice.send');
    };
    const showsB = async () => {
      await page.locator('h1 code', { hasText: b.slice(0, 8) }).waitFor();
      await timeline.getByText('invoice.send').waitFor();
      await expect(timeline.textContent()).resolves.not.toContain('order_lookup');
      await expect(streamed.textContent()).resolves.not.toContain(replyA);
    };
    await showsA();
    for (let round = 0; round < 2; round++) {
      await page.goto(`${origin}/console#/runs/${b}`);
      await showsB();
      await page.goBack();
      await showsA();
    }
    expect(tab.consoleErrors).toEqual([]);
  });

  test('a connection cut while an approval is created: the badge says reconnecting, then the card arrives without a reload', async () => {
    const tab = await open();
    const { page } = tab;
    await signIn(tab, demo.seed.keys.expert);
    await page.locator('[data-testid=connection][data-state=live]').waitFor();
    await page.locator('ul[aria-label="Pending approvals"][aria-busy=false]').waitFor();
    const before = await page.locator('li.card').count();

    proxy.pause();
    await page.locator('[data-testid=connection][data-state=reconnecting]').waitFor();
    const runId = await startRun(INVOICE_REQUEST);
    // The approval exists while the console cannot hear about it.
    for (;;) {
      const res = await demo.app.gql<{ run: { pendingApprovalCount: number } }>('query($id: ID!) { run(id: $id) { pendingApprovalCount } }', {
        key: demo.seed.keys.expert,
        variables: { id: runId },
      });
      if (res.body.data?.run.pendingApprovalCount === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    proxy.resume();
    await page.locator('li.card', { hasText: runId.slice(0, 8) }).waitFor({ timeout: 30_000 });
    await page.locator('[data-testid=connection][data-state=live]').waitFor();
    await expect(page.locator('li.card').count()).resolves.toBe(before + 1);
  });

  test('a revoked key: the badge says offline, never live beside the error', async () => {
    const created = await demo.app.gql<{ createApiKey: { apiKey: { id: string }; secret: string } }>(
      'mutation { createApiKey(role: expert, name: "short-lived reviewer") { apiKey { id } secret } }',
      { key: demo.seed.keys.admin },
    );
    expect(created.body.errors).toBeUndefined();
    const { apiKey, secret } = created.body.data!.createApiKey;
    const tab = await open();
    await signIn(tab, secret);
    await tab.page.locator('[data-testid=connection][data-state=live]').waitFor();
    const revoked = await demo.app.gql('mutation($id: ID!) { revokeApiKey(id: $id) { id } }', {
      key: demo.seed.keys.admin,
      variables: { id: apiKey.id },
    });
    expect(revoked.body.errors).toBeUndefined();
    await tab.page.locator('[data-testid=connection][data-state=offline]').waitFor({ timeout: 30_000 });
    await expect(tab.page.getByTestId('connection').textContent()).resolves.toBe('offline');
  });

  test('two reviewers on one item: the card resolved elsewhere stays, says who resolved it and how, and keeps the draft', async () => {
    const created = await demo.app.gql<{ createApiKey: { secret: string } }>(
      'mutation { createApiKey(role: expert, name: "second reviewer") { secret } }',
      {
        key: demo.seed.keys.admin,
      },
    );
    expect(created.body.errors).toBeUndefined();
    const first = await open();
    const second = await open();
    await signIn(first, demo.seed.keys.expert);
    await signIn(second, created.body.data!.createApiKey.secret);
    const runId = await startRun(INVOICE_REQUEST);
    const cardOf = (tab: OfflinePage) => tab.page.locator('li.card', { hasText: runId.slice(0, 8) });
    await cardOf(first).waitFor();
    await cardOf(second).waitFor();

    await cardOf(second).getByLabel('Reason').fill('I was going to approve this');
    await cardOf(first).getByLabel('Reason').fill('amount does not match the order');
    await cardOf(first).getByRole('button', { name: 'Reject' }).click();
    await cardOf(first).waitFor({ state: 'detached' });

    const notice = cardOf(second).getByRole('status');
    await notice.waitFor();
    await expect(notice.textContent()).resolves.toMatch(/Rejected elsewhere by .*expert.*amount does not match the order/);
    await expect(cardOf(second).getByLabel('Reason').inputValue()).resolves.toBe('I was going to approve this');
    await expect(cardOf(second).getByRole('button', { name: 'Approve' }).isDisabled()).resolves.toBe(true);
    await cardOf(second).getByRole('button', { name: 'Dismiss' }).click();
    await cardOf(second).waitFor({ state: 'detached' });
  });

  test("at expiry the buttons are disabled on the client's clock", async () => {
    const tab = await open();
    await tab.page.clock.install();
    await signIn(tab, demo.seed.keys.expert);
    const runId = await startRun(INVOICE_REQUEST);
    const card = tab.page.locator('li.card', { hasText: runId.slice(0, 8) });
    await card.waitFor();
    await expect(card.getByRole('button', { name: 'Approve' }).isDisabled()).resolves.toBe(false);
    await tab.page.clock.fastForward('24:00:05');
    await card.locator('.time-left', { hasText: 'expired' }).waitFor();
    await expect(card.getByRole('button', { name: 'Approve' }).isDisabled()).resolves.toBe(true);
    await expect(card.getByRole('button', { name: 'Reject' }).isDisabled()).resolves.toBe(true);
  });

  test('a failed ledger filter clears the previous results', async () => {
    const tab = await open();
    await signIn(tab, demo.seed.keys.expert, '#/ledger');
    await tab.page.locator('tbody tr').first().waitFor();
    await tab.page.getByLabel('Run id').fill('not-a-run-id');
    await tab.page.getByRole('button', { name: 'Apply' }).click();
    await tab.page.getByRole('alert').waitFor();
    await expect(tab.page.locator('tbody tr').count()).resolves.toBe(0);
  });

  test('120 pending: the queue pages by 50 with the total, in time-left order by default; risk order and a filter on the server', async () => {
    const em = demo.app.em();
    // The demo org as the row builders take it; its pending requests, made straight in the database.
    const owner = { org: { id: demo.seed.orgId } as Org, specialist: { id: demo.seed.specialistId } as Specialist, keys: demo.seed.keys } as TestOrg;
    const run = await newRun(em, owner, { status: 'waiting_approval', allowedTools: ['invoice.send'] });
    const now = Date.now();
    for (let i = 0; i < 120; i++) {
      await newToolCall(em, owner, run, {
        status: 'waiting_approval',
        toolName: 'invoice',
        action: 'send',
        outcome: 'require_expert_approval',
        riskLevel: (['low', 'medium', 'high'] as const)[i % 3],
        input: { customerId: String(i % 4), amount: 1000 + i },
        // The newest expire first: a list in creation order would be the wrong one.
        createdAt: new Date(now - (120 - i) * 1000),
        approval: { kind: 'expert', expiresAt: new Date(now + 2 * 3_600_000 + (120 - i) * 60_000) },
      });
    }
    const tab = await open();
    const { page } = tab;
    await signIn(tab, demo.seed.keys.expert);
    await page.locator('ul[aria-label="Pending approvals"][aria-busy=false]').waitFor();
    const summary = page.getByTestId('queue-summary');
    const total = Number((await page.locator('h1 .count').textContent())!.replace(/\D/g, ''));
    expect(total).toBeGreaterThanOrEqual(120);
    await expect(summary.textContent()).resolves.toBe(`Showing 50 of ${total}`);
    const amounts = async () =>
      (await page.getByLabel('Parameters being approved').allTextContents()).map((text) => JSON.parse(text).amount as number | undefined);
    // Nearest expiry first: the most recently created of the 120 come first (amount 1119, 1118, …).
    const firstPage = (await amounts()).filter((a) => a !== undefined && a >= 1000);
    expect(firstPage.slice(0, 3)).toEqual([1119, 1118, 1117]);
    await page.getByRole('button', { name: /^Show 50 more$/ }).click();
    await page.getByTestId('queue-summary').getByText(`Showing 100 of ${total}`).waitFor();
    await expect(page.locator('ul[aria-label="Pending approvals"] > li.card').count()).resolves.toBe(100);
    await page.getByRole('button', { name: /^Show \d+ more$/ }).click();
    await page.getByTestId('queue-summary').getByText(`Showing ${total} of ${total}`).waitFor();
    await expect(page.getByRole('button', { name: /more$/ }).count()).resolves.toBe(0);

    await page.getByRole('combobox', { name: 'Order' }).selectOption('risk');
    await page.getByTestId('queue-summary').getByText(`Showing 50 of ${total}`).waitFor();
    const risks = await page.locator('li.card h2 .badge').allTextContents();
    expect(risks.slice(0, 40).every((r) => r === 'risk high')).toBe(true);

    await page.getByLabel('Amount from').fill('1100');
    await page.getByLabel('Customer').fill('1');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByTestId('queue-summary').getByText('Showing 5 of 5').waitFor();
    expect((await amounts()).sort()).toEqual([1101, 1105, 1109, 1113, 1117]);
  });

  test("an admin's queue holds both kinds: the Kind filter narrows it on the server", async () => {
    const tab = await open();
    const { page } = tab;
    await signIn(tab, demo.seed.keys.admin);
    await page.locator('ul[aria-label="Pending approvals"][aria-busy=false]').waitFor();
    const total = Number((await page.locator('h1 .count').textContent())!.replace(/\D/g, ''));
    expect(total).toBeGreaterThan(0); // the expert approvals of the tests above
    const kind = page.getByRole('combobox', { name: 'Kind' });
    await kind.selectOption('client');
    await page.getByTestId('queue-summary').getByText('Showing 0 of 0').waitFor();
    await kind.selectOption('expert');
    await page
      .getByTestId('queue-summary')
      .getByText(`Showing ${Math.min(50, total)} of ${total}`)
      .waitFor();
    // An expert's queue is its own kind: no Kind filter to choose.
    const expert = await open();
    await signIn(expert, demo.seed.keys.expert);
    await expert.page.locator('ul[aria-label="Pending approvals"][aria-busy=false]').waitFor();
    await expect(expert.page.getByRole('combobox', { name: 'Kind' }).count()).resolves.toBe(0);
  });
});
