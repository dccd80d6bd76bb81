import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { useDemoApp } from '../support/demo-fixture';
import { describeInBrowser, launchChromium, offlinePage, type OfflinePage } from './browser';

/**
 * The queue's tools for a reviewer team (issue 30, items 2 and 6): bulk approve or reject
 * with one reason and per-item results, the compact list with a detail pane on wide
 * screens, and the keyboard shortcuts. Approvals come from external runs (the gateway over
 * the API), so each test knows exactly which items it made.
 */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';
const DOCS = path.join(__dirname, '..', '..', 'docs');
const WIDE = { width: 1280, height: 900 };
const NARROW = { width: 1024, height: 900 };

jest.setTimeout(120_000);

describeInBrowser('approval queue tools in chromium', () => {
  const demo = useDemoApp({}, { sandboxes: true });
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
    for (const { context } of opened.splice(0)) await context.close();
    // Each test starts from an empty queue: what a test left pending is rejected through the API.
    const pending = await demo.gw.ok(
      '{ approvalRequests(filter: { status: pending }, first: 100) { edges { node { id } } } }',
      {},
      demo.seed.keys.expert,
    );
    const ids = pending.approvalRequests.edges.map((e: { node: { id: string } }) => e.node.id);
    for (let start = 0; start < ids.length; start += 50) {
      const chunk = ids.slice(start, start + 50);
      await demo.gw.ok(
        'mutation($ids: [ID!]!) { resolveApprovals(ids: $ids, decision: REJECT) { approvalId } }',
        { ids: chunk },
        demo.seed.keys.expert,
      );
    }
  });

  async function open(viewport: { width: number; height: number }): Promise<OfflinePage> {
    const tab = await offlinePage(browser, viewport);
    opened.push(tab);
    await tab.page.goto(`${origin()}/console`);
    await tab.page.getByLabel('API key').fill(demo.seed.keys.expert);
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
    await tab.page.getByLabel('Signed in as').waitFor();
    return tab;
  }

  /** `count` pending expert approvals on external runs (invoices of 101, 102, …); their run and approval ids. */
  async function pendingInvoices(count: number, customerId = '1'): Promise<{ runId: string; approvalId: string; amount: number }[]> {
    const made = [];
    for (let i = 1; i <= count; i++) {
      const run = await demo.gw.startRun();
      const waiting = await demo.gw.execute(run.id, 'invoice', 'send', { customerId, amount: 100 + i });
      expect(waiting.status).toBe('waiting_approval');
      made.push({ runId: run.id, approvalId: waiting.approvalRequestId!, amount: 100 + i });
    }
    return made;
  }

  /** axe-core's rule ids that fail inside `selectors` (the parts this suite adds: the whole inbox is the accessibility suite's). */
  async function axeViolations(page: OfflinePage['page'], selectors: string[]): Promise<string[]> {
    // Evaluated over the DevTools protocol, which the page's CSP does not govern.
    await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
    return page.evaluate<string[], string[]>(async (include) => {
      const axe = (globalThis as unknown as { axe: { run: (context: unknown) => Promise<{ violations: { id: string }[] }> } }).axe;
      const result = await axe.run({ include: include.map((selector) => [selector]) });
      return result.violations.map((violation) => violation.id);
    }, selectors);
  }

  /** Waits until `target` holds the focus (the console moves it on the next frame). */
  async function focusOn(target: Locator): Promise<void> {
    await target.page().waitForFunction((element) => element?.matches(':focus') === true, await target.elementHandle());
  }

  const statusOf = async (approvalId: string) =>
    (
      await demo.app
        .em()
        .execute<{ status: string; reason: string | null }[]>('select status, reason from approval_requests where id = ?', [approvalId])
    )[0];

  test('bulk approve of 5, one resolved elsewhere meanwhile: 4 approved with the one reason and leave, the other stays with its code', async () => {
    const items = await pendingInvoices(5);
    const tab = await open(WIDE);
    const { page } = tab;
    const rows = page.getByRole('list', { name: 'Approval list' });
    await rows.locator('li.row').nth(4).waitFor();
    const count = async () => Number((await page.locator('h1 .count').textContent())!.replace(/\D/g, ''));
    expect(await count()).toBe(5);
    for (const item of items) await rows.getByRole('checkbox', { name: `Select invoice.send, run ${item.runId.slice(0, 8)}` }).check();
    await expect(page.getByTestId('bulk-count').textContent()).resolves.toBe('5 selected');

    // Another reviewer approves the third one first.
    const elsewhere = items[2];
    const res = await demo.app.gql('mutation($id: ID!) { resolveApproval(id: $id, decision: APPROVE, reason: "done by phone") { status } }', {
      key: demo.seed.keys.expert,
      variables: { id: elsewhere.approvalId },
    });
    expect(res.body.errors).toBeUndefined();

    const bar = page.getByRole('region', { name: 'Bulk decision' });
    await bar.getByLabel('Reason for all').fill('checked against the orders');
    await bar.getByRole('button', { name: 'Approve selected' }).click();

    // The failed one stays, its card and its row naming the code; the others leave.
    const failed = page.locator(`li.card[data-approval-id="${elsewhere.approvalId}"]`);
    await failed.getByTestId('bulk-failure').waitFor();
    await expect(failed.getByTestId('bulk-failure').textContent()).resolves.toContain('APPROVAL_ALREADY_RESOLVED');
    await expect(rows.locator('li.row').count()).resolves.toBe(1);
    await expect(rows.locator('li.row .row-failure').textContent()).resolves.toBe('APPROVAL_ALREADY_RESOLVED');
    for (const item of items.filter((i) => i !== elsewhere)) {
      await page.locator(`li.card[data-approval-id="${item.approvalId}"]`).waitFor({ state: 'detached' });
      expect(await statusOf(item.approvalId)).toEqual({ status: 'approved', reason: 'checked against the orders' });
    }
    // Nothing changed for the one resolved elsewhere.
    expect(await statusOf(elsewhere.approvalId)).toEqual({ status: 'approved', reason: 'done by phone' });
    await expect(page.getByRole('status').filter({ hasText: '4 approved; 1 not resolved (APPROVAL_ALREADY_RESOLVED).' }).count()).resolves.toBe(1);
    // The count: none of the five is pending any more (the live events of the four do not count them twice).
    await page.locator('h1 .count', { hasText: '(0)' }).waitFor();
    await expect(page.getByTestId('bulk-count').textContent()).resolves.toBe('0 selected');
    expect(tab.failures).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });

  test('the pending count stays true beyond the first page: items resolved here are not counted again when their live events arrive', async () => {
    const items = await pendingInvoices(55);
    const tab = await open(NARROW);
    const { page } = tab;
    await page.locator('ul[aria-label="Pending approvals"][aria-busy=false]').waitFor();
    await page.locator('h1 .count', { hasText: '(55)' }).waitFor();
    await expect(page.getByTestId('queue-summary').textContent()).resolves.toBe('Showing 50 of 55');
    const chosen = items.slice(0, 5);
    for (const item of chosen) await page.getByRole('checkbox', { name: `Select invoice.send, run ${item.runId.slice(0, 8)}` }).check();
    await page.getByRole('button', { name: 'Approve selected' }).click();
    await page.getByRole('status').filter({ hasText: '5 approved.' }).waitFor();
    // One more approval, made after the five were resolved: once it is on screen, the five's events (sent before it) were handled too.
    const [late] = await pendingInvoices(1, '9');
    await page.locator(`li.card[data-approval-id="${late.approvalId}"]`).waitFor();
    await expect(page.locator('h1 .count').textContent()).resolves.toBe('(51)');
  });

  test('"Select all shown" and one reason reject every card on a narrow screen', async () => {
    const items = await pendingInvoices(3);
    const tab = await open(NARROW);
    const { page } = tab;
    await page.locator('li.card').nth(2).waitFor();
    // Narrow: the cards as they were, each with its checkbox, and no compact list.
    await expect(page.getByRole('list', { name: 'Approval list' }).count()).resolves.toBe(0);
    await expect(page.locator('li.card:visible').count()).resolves.toBe(3);
    // j / k move the focus from card to card.
    await page.locator('h1').click();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await focusOn(page.locator(`li.card[data-approval-id="${items[1].approvalId}"]`));
    await page.keyboard.press('k');
    await focusOn(page.locator(`li.card[data-approval-id="${items[0].approvalId}"]`));
    await page.getByRole('checkbox', { name: 'Select all shown' }).check();
    await expect(page.getByTestId('bulk-count').textContent()).resolves.toBe('3 selected');
    await page.getByLabel('Reason for all').fill('duplicate invoices');
    await page.getByRole('button', { name: 'Reject selected' }).click();
    await page.getByText('Nothing waits for approval.').waitFor();
    for (const item of items) expect(await statusOf(item.approvalId)).toEqual({ status: 'rejected', reason: 'duplicate invoices' });
  });

  test('wide screens: a compact row per item, the chosen item in a pane beside the list; narrow screens keep the cards', async () => {
    const items = await pendingInvoices(3, '7');
    const tab = await open(WIDE);
    const { page } = tab;
    const rows = page.getByRole('list', { name: 'Approval list' }).locator('li.row');
    await rows.nth(2).waitFor();
    // Each row: tool.action, risk, time left, amount and customer.
    await expect(rows.first().locator('.row-open').textContent()).resolves.toMatch(
      /^invoice\.send risk high (23 h 59 min|24 h 00 min)amount 101 · customer 7$/,
    );
    // One card shows: the first item's, in the pane to the right of the list.
    const visible = page.locator('li.card:visible');
    await expect(visible.count()).resolves.toBe(1);
    await expect(visible.getAttribute('data-approval-id')).resolves.toBe(items[0].approvalId);
    const list = (await page.getByRole('list', { name: 'Approval list' }).boundingBox())!;
    const pane = (await visible.boundingBox())!;
    expect(pane.x).toBeGreaterThanOrEqual(list.x + list.width);
    expect(pane.y).toBeLessThan(list.y + list.height);
    await expect(rows.first().locator('.row-open').getAttribute('aria-current')).resolves.toBe('true');

    // Choosing a row shows its card; the draft of the one before is kept.
    await visible.getByLabel('Reason').fill('a draft');
    await rows.nth(2).locator('.row-open').click();
    await expect(page.locator('li.card:visible').getAttribute('data-approval-id')).resolves.toBe(items[2].approvalId);
    await rows.nth(0).locator('.row-open').click();
    await expect(page.locator(`li.card[data-approval-id="${items[0].approvalId}"]`).getByLabel('Reason').inputValue()).resolves.toBe('a draft');
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'console-queue.png'), fullPage: true });
    expect(await axeViolations(page, ['.rows', '.bulk'])).toEqual([]);

    // Approving the chosen one: it leaves, the next takes the pane and the focus.
    await page.locator('li.card:visible').getByRole('button', { name: 'Approve' }).click();
    await page.locator(`li.card[data-approval-id="${items[0].approvalId}"]`).waitFor({ state: 'detached' });
    await expect(page.locator('li.card:visible').getAttribute('data-approval-id')).resolves.toBe(items[1].approvalId);
    await focusOn(page.locator(`li.card[data-approval-id="${items[1].approvalId}"]`));

    // The same page narrowed: the cards again, all shown.
    await page.setViewportSize(NARROW);
    await page.getByRole('list', { name: 'Approval list' }).waitFor({ state: 'detached' });
    await expect(page.locator('li.card:visible').count()).resolves.toBe(2);
  });

  test('keys: j/k move, a approves, r asks for a reason first then rejects, e edits, ? shows the help; never while typing', async () => {
    const items = await pendingInvoices(4);
    const tab = await open(WIDE);
    const { page } = tab;
    const rows = page.getByRole('list', { name: 'Approval list' }).locator('li.row');
    await rows.nth(3).waitFor();
    const chosen = () => page.locator('li.card:visible').getAttribute('data-approval-id');
    const cardOf = (i: number) => page.locator(`li.card[data-approval-id="${items[i].approvalId}"]`);
    await page.locator('h1').click(); // focus on the page, in no field

    await page.keyboard.press('j');
    await expect(chosen()).resolves.toBe(items[1].approvalId);
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await expect(chosen()).resolves.toBe(items[1].approvalId);

    // ? opens the help, Esc closes it.
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    for (const key of ['j', 'k', 'a', 'r', 'e', '?'])
      await expect(help.locator('kbd', { hasText: new RegExp(`^${key.replace('?', '\\?')}$`) }).count()).resolves.toBe(1);
    expect(await axeViolations(page, ['.shortcut-help'])).toEqual([]);
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });

    // r with no reason: to the Reason field, nothing sent. Typed keys are text there, not shortcuts.
    await page.keyboard.press('r');
    const reason = cardOf(1).getByLabel('Reason');
    await expect(reason.evaluate((el) => el.matches(':focus'))).resolves.toBe(true);
    expect((await statusOf(items[1].approvalId)).status).toBe('pending');
    await page.keyboard.type('jar of keys');
    await expect(reason.inputValue()).resolves.toBe('jar of keys');
    await expect(chosen()).resolves.toBe(items[1].approvalId);
    expect((await statusOf(items[1].approvalId)).status).toBe('pending');
    // Esc leaves the field for its card; r now rejects with that reason.
    await page.keyboard.press('Escape');
    await page.keyboard.press('r');
    await cardOf(1).waitFor({ state: 'detached' });
    expect(await statusOf(items[1].approvalId)).toEqual({ status: 'rejected', reason: 'jar of keys' });

    // The next item took its place: a approves it.
    await expect(chosen()).resolves.toBe(items[2].approvalId);
    await page.keyboard.press('a');
    await cardOf(2).waitFor({ state: 'detached' });
    expect((await statusOf(items[2].approvalId)).status).toBe('approved');

    // e opens the editor of the current item, its field focused.
    await expect(chosen()).resolves.toBe(items[3].approvalId);
    await page.keyboard.press('e');
    // The per-field form: its first field takes the focus.
    const editor = cardOf(3).getByRole('group', { name: 'Edited parameters' }).locator('input, textarea').first();
    await editor.waitFor();
    await focusOn(editor);
    await page.keyboard.press('a'); // typed into the editor, not an approval
    expect((await statusOf(items[3].approvalId)).status).toBe('pending');
    expect(tab.consoleErrors).toEqual([]);
  });
});
