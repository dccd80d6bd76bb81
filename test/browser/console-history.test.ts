import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { useDemoApp } from '../support/demo-fixture';
import { EXECUTE_APPROVED_TOOL_CALL, UPSERT_POLICY_RULE } from '../support/documents';
import { describeInBrowser, launchChromium, offlinePage, type OfflinePage } from './browser';

/**
 * Reviewers see what happened (issue 30, items 3 and 4), in chromium against a real server:
 * the conversation labelled by role with the tool calls (an external run's calls as its
 * conversation), an edit of the visible fields while a hidden value stays sealed, the edit
 * as a diff with its editor and reason on the run page, an approval's history, and review
 * items in a tab of their own, live, acknowledged with a note, paged by 50 ("Show more").
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1', ANTHROPIC_MAX_RETRIES: '0' };
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';
const CARD = '4111 1111 1111 1111';

jest.setTimeout(90_000);

/**
 * axe-core's violations (WCAG 2 A/AA and best practices) on the page as it is now, or only
 * inside the elements `include` selects, as `rule: target` lines.
 */
async function axeViolations(page: Page, include: string[] | null = null): Promise<string[]> {
  await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate(async (only) => {
    const axe = (
      globalThis as unknown as {
        axe: { run: (context: unknown, options: unknown) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run(only ? { include: only.map((selector) => [selector]) } : { exclude: [] }, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] },
    });
    return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
  }, include);
  return violations;
}

describeInBrowser('console: conversation, edits, history and review items', () => {
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
    for (const { context } of opened.splice(0)) await context.close();
  });

  async function signedIn(key: string): Promise<OfflinePage> {
    const tab = await offlinePage(browser);
    opened.push(tab);
    await tab.page.goto(`${origin()}/console`);
    await tab.page.getByLabel('API key').fill(key);
    await tab.page.keyboard.press('Enter');
    await tab.page.getByLabel('Signed in as').waitFor();
    return tab;
  }

  const expertName = async () =>
    (
      await demo.app
        .em()
        .execute<{ name: string | null; prefix: string }[]>("select name, prefix from api_keys where org_id = ? and role = 'expert'", [
          demo.seed.orgId,
        ])
    ).map((k) => k.name ?? `expert key ${k.prefix}`)[0];

  test('a model run: the card labels the user, the tool call (tool.action and its input) and never calls a result "User"', async () => {
    const tab = await signedIn(demo.seed.keys.expert);
    const res = await demo.app.gql<{ startAgentRun: { id: string } }>(
      'mutation($s: ID!, $m: String!) { startAgentRun(input: { specialistId: $s, message: $m }) { id } }',
      { key: demo.seed.keys.client, variables: { s: demo.seed.specialistId, m: INVOICE_REQUEST } },
    );
    const runId = res.body.data!.startAgentRun.id;
    const card = tab.page.locator('li.card', { hasText: runId.slice(0, 8) });
    await card.waitFor();
    await card.getByText(/Conversation so far/).click();
    const conversation = card.getByRole('list', { name: 'Conversation so far' });
    await conversation.getByText('Tool call: invoice.send').waitFor();
    const labels = await conversation.locator(':scope > li > strong').allTextContents();
    expect(labels[0]).toBe('User');
    expect(labels).toContain('Tool call: invoice.send');
    expect(labels.filter((l) => l === 'User')).toHaveLength(1);
    await expect(conversation.textContent()).resolves.toContain(INVOICE_REQUEST);
    await expect(conversation.getByRole('figure', { name: 'Input of invoice.send (redacted)' }).textContent()).resolves.toContain('120.5');
    await expect(card.textContent()).resolves.not.toContain('(tool use)');
    await card.getByText(/^History/).click();
    await card.getByRole('list', { name: 'History of this approval' }).waitFor();
    // The card's new parts (the inbox page's own heading order is another item of issue 30).
    expect(await axeViolations(tab.page, ['li.card details'])).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    expect(tab.failures).toEqual([]);
  });

  test('an edit of the amount with a hidden value present: accepted, runs with the new amount and the sealed value; the run page shows the diff, the editor, the reason and the history', async () => {
    const tab = await signedIn(demo.seed.keys.expert);
    const { page } = tab;
    // An external run (no messages): its tool call is its conversation.
    const run = await demo.gw.startRun();
    const waiting = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 120.5, description: `Paid by card ${CARD}` });
    expect(waiting.status).toBe('waiting_approval');
    const card = page.locator('li.card', { hasText: run.id.slice(0, 8) });
    await card.waitFor();
    await card.getByText(/Conversation so far/).click();
    // Read when opened: an external run has no messages, so its tool call is its conversation.
    await card.getByText('Conversation so far (1)').waitFor();
    await expect(card.getByRole('list', { name: 'Conversation so far' }).textContent()).resolves.toContain('Tool call: invoice.send');

    await card.getByRole('button', { name: 'Edit parameters' }).click();
    await expect(card.getByLabel('description', { exact: true }).textContent()).resolves.toContain('hidden — kept as it is');
    await card.getByLabel('amount', { exact: true }).fill('99');
    const diff = card.getByRole('table', { name: 'Your edit, before and after' });
    await expect(diff.locator('tbody tr').allTextContents()).resolves.toEqual(['amount120.599']);
    await card.getByLabel('Reason').fill('agreed 99 with the customer');
    await card.getByRole('button', { name: 'Approve with edits' }).click();
    await card.waitFor({ state: 'detached' });

    const ran = await demo.app.gql(EXECUTE_APPROVED_TOOL_CALL, { key: demo.seed.keys.agent, variables: { id: waiting.toolCallId } });
    expect(ran.body.data?.executeApprovedToolCall.status).toBe('succeeded');
    const posted = demo.app.sandbox!.requests.filter((r) => r.vendor === 'nango' && r.method === 'POST' && r.path.endsWith('/invoice')).at(-1)!;
    expect((posted.body as { Line: { Amount: number; Description?: string }[] }).Line[0]).toMatchObject({
      Amount: 99,
      Description: `Paid by card ${CARD}`,
    });
    const [stored] = await demo.app
      .em()
      .execute<{ edited_input_redacted: unknown }[]>('select edited_input_redacted from tool_calls where id = ?', [waiting.toolCallId]);
    expect(stored.edited_input_redacted).toEqual({ customerId: '1', amount: 99, description: 'Paid by card [REDACTED]' });

    await page.goto(`${origin()}/console#/runs/${run.id}`);
    const timeline = page.getByLabel('Tool-call timeline');
    await timeline.getByText('succeeded').waitFor();
    const name = await expertName();
    await expect(timeline.locator('.call-edit p').textContent()).resolves.toBe(`Edited before approval by ${name}: “agreed 99 with the customer”`);
    await expect(timeline.getByRole('table', { name: 'Edited parameters of invoice.send' }).locator('tbody tr').allTextContents()).resolves.toEqual([
      'amount120.599',
    ]);
    await timeline.getByText(/Approval history/).click();
    const history = timeline.getByRole('list', { name: 'History of the approval of invoice.send' });
    const steps = await history.locator(':scope > li > strong').allTextContents();
    expect(steps).toEqual(['Requested', 'Approved with edits']);
    await expect(history.textContent()).resolves.toContain(`by ${name}`);
    await expect(page.getByRole('list', { name: 'Conversation' }).textContent()).resolves.toContain('Tool call: invoice.send');
    await expect(page.locator('body').textContent()).resolves.not.toContain(CARD);
    expect(await axeViolations(page)).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    expect(tab.blocked).toEqual([]);
  });

  test('a card approved elsewhere with edits shows the edit as a diff in its notice', async () => {
    const tab = await signedIn(demo.seed.keys.expert);
    const run = await demo.gw.startRun();
    const waiting = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 120.5 });
    const card = tab.page.locator('li.card', { hasText: run.id.slice(0, 8) });
    await card.waitFor();
    const resolved = await demo.app.gql(
      'mutation($id: ID!, $p: JSONObject) { resolveApproval(id: $id, decision: APPROVE, reason: "agreed 99", editedParams: $p) { id } }',
      { key: demo.seed.keys.expert, variables: { id: waiting.approvalRequestId, p: { customerId: '1', amount: 99 } } },
    );
    expect(resolved.body.errors).toBeUndefined();
    const notice = card.locator('.gone-notice');
    await notice.waitFor();
    await expect(notice.textContent()).resolves.toContain(`Approved elsewhere by ${await expertName()}: “agreed 99”`);
    await expect(notice.getByRole('table', { name: 'Edited there, before and after' }).locator('tbody tr').allTextContents()).resolves.toEqual([
      'amount120.599',
    ]);
  });

  test('review items have a tab of their own: an observed call arrives live, and acknowledged with a note it leaves every screen', async () => {
    const rule = await demo.app.gql(UPSERT_POLICY_RULE, {
      key: demo.seed.keys.admin,
      variables: {
        input: {
          name: 'Tiny invoices are observed',
          position: 1,
          toolPattern: 'invoice',
          actionPattern: 'send',
          conditions: [{ path: 'amount', op: 'lt', value: 50 }],
          risk: 'low',
          decision: 'observe',
        },
      },
    });
    expect(rule.body.errors).toBeUndefined();
    const expert = await signedIn(demo.seed.keys.expert);
    const admin = await signedIn(demo.seed.keys.admin);
    for (const { page } of [expert, admin]) {
      await page.getByRole('link', { name: 'For review' }).click();
      await page.getByRole('heading', { name: /^For review \(\d+\)$/ }).waitFor();
    }
    const run = await demo.gw.startRun();
    const observed = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 20 });
    expect(observed.status).toBe('succeeded');

    // No reload: the item arrives on both screens.
    const item = (tab: OfflinePage) => tab.page.locator(`li[data-review-id="${observed.toolCallId}"]`);
    await item(expert).waitFor();
    await item(admin).waitFor();
    await expect(item(expert).textContent()).resolves.toContain('Observed by policy');
    expect(await axeViolations(expert.page)).toEqual([]);

    await item(expert).getByLabel('Note').fill('Small invoice, fine.');
    await item(expert).getByRole('button', { name: 'Acknowledge' }).click();
    await item(expert).waitFor({ state: 'detached' });
    await expert.page.getByRole('status').filter({ hasText: 'Review of invoice.send acknowledged.' }).waitFor();
    // The other reviewer's screen drops it live.
    await item(admin).waitFor({ state: 'detached' });

    const [event] = await demo.app
      .em()
      .execute<{ actor_role: string; metadata: { note: string } }[]>(
        "select actor_role, metadata from ledger_events where resource_id = ? and type = 'tool_call.review_acknowledged'",
        [observed.toolCallId],
      );
    expect(event).toMatchObject({ actor_role: 'expert', metadata: { note: 'Small invoice, fine.' } });
    expect(expert.consoleErrors).toEqual([]);
    expect(admin.consoleErrors).toEqual([]);
    await demo.app.gql('mutation($id: ID!) { deletePolicyRule(id: $id) }', {
      key: demo.seed.keys.admin,
      variables: { id: rule.body.data!.upsertPolicyRule.id },
    });
  });

  test('more than 50 review items: the tab shows the first 50, newest first, and "Show more" brings the rest', async () => {
    const rule = await demo.app.gql(UPSERT_POLICY_RULE, {
      key: demo.seed.keys.admin,
      variables: {
        input: {
          name: 'Tiny invoices are observed (paging)',
          position: 1,
          toolPattern: 'invoice',
          actionPattern: 'send',
          conditions: [{ path: 'amount', op: 'lt', value: 50 }],
          risk: 'low',
          decision: 'observe',
        },
      },
    });
    expect(rule.body.errors).toBeUndefined();
    const run = await demo.gw.startRun();
    const made: string[] = [];
    for (let i = 0; i < 55; i++) {
      const call = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 10 + i / 100 });
      expect(call.status).toBe('succeeded');
      made.push(call.toolCallId!);
    }
    const [{ count }] = await demo.app
      .em()
      .execute<{ count: string }[]>('select count(*) from tool_calls where org_id = ? and review_required and review_acknowledged_at is null', [
        demo.seed.orgId,
      ]);
    const total = Number(count);
    expect(total).toBeGreaterThanOrEqual(55);
    expect(total).toBeLessThanOrEqual(100);

    const { page, consoleErrors } = await signedIn(demo.seed.keys.expert);
    await page.getByRole('link', { name: 'For review' }).click();
    await page.getByRole('heading', { name: `For review (${total})` }).waitFor();
    const cards = page.getByRole('list', { name: 'Calls for review' }).locator(':scope > li');
    await page.getByRole('heading', { name: `Calls for review (50 shown of ${total})` }).waitFor();
    await expect(cards.count()).resolves.toBe(50);
    // Newest first: the last call made leads; the first ones made are not on the first page.
    await expect(cards.first().getAttribute('data-review-id')).resolves.toBe(made.at(-1));
    await expect(page.locator(`li[data-review-id="${made[0]}"]`).count()).resolves.toBe(0);

    await page.getByRole('button', { name: `Show ${total - 50} more` }).click();
    await page.getByRole('heading', { name: `Calls for review (${total} shown of ${total})` }).waitFor();
    await expect(cards.count()).resolves.toBe(total);
    for (const id of made) await expect(page.locator(`li[data-review-id="${id}"]`).count()).resolves.toBe(1);
    // The last page read: nothing more to show.
    await expect(page.getByRole('button', { name: /^Show \d+ more$/ }).count()).resolves.toBe(0);
    expect(consoleErrors).toEqual([]);
    await demo.app.gql('mutation($id: ID!) { deletePolicyRule(id: $id) }', {
      key: demo.seed.keys.admin,
      variables: { id: rule.body.data!.upsertPolicyRule.id },
    });
  });
});
