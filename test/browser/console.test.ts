import path from 'node:path';
import type { Browser } from 'playwright-core';
import { useDemoApp } from '../support/demo-fixture';
import { UPSERT_POLICY_RULE } from '../support/documents';
import { describeInBrowser, launchChromium, offlinePage, type OfflinePage } from './browser';

/**
 * The approval console (/console) in a real chromium against a real server (the demo org,
 * the offline model, the vendor sandboxes and the job worker), with every request to
 * another origin aborted. Set CONSOLE_SCREENSHOTS=1 to write docs/console-*.png.
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1', ANTHROPIC_MAX_RETRIES: '0' };
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';
const DOCS = path.join(__dirname, '..', '..', 'docs');

jest.setTimeout(90_000);

describeInBrowser('approval console in chromium', () => {
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

  async function open(viewport?: { width: number; height: number }): Promise<OfflinePage> {
    const page = await offlinePage(browser, viewport);
    opened.push(page);
    return page;
  }

  /** Signs in with the keyboard only: the key field, then Enter. */
  async function signIn({ page }: OfflinePage, key: string): Promise<void> {
    await page.goto(`${origin()}/console`);
    const field = page.getByLabel('API key');
    await field.focus();
    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
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

  test('served self-contained under a strict CSP; the key stays in sessionStorage, not the URL', async () => {
    const tab = await open();
    const response = await tab.page.goto(`${origin()}/console`);
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await tab.page.locator('script:not([src])').count()).toBe(0);

    await signIn(tab, demo.seed.keys.expert);
    expect(tab.page.url()).not.toContain(demo.seed.keys.expert);
    expect(await tab.page.evaluate<string[]>('Object.values(sessionStorage)')).toContain(demo.seed.keys.expert);
    expect(tab.blocked).toEqual([]);
    expect(tab.failures).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });

  test('a wrong key is refused with its code', async () => {
    const tab = await open();
    await tab.page.goto(`${origin()}/console`);
    await tab.page.getByLabel('API key').fill('tg_expert_not-a-real-key');
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
    await expect(tab.page.getByRole('alert').textContent()).resolves.toContain('UNAUTHENTICATED');
  });

  test('views follow the role: experts read ledger and policy, clients approve and read runs, agents only runs', async () => {
    const views = async (key: string) => {
      const tab = await open();
      await signIn(tab, key);
      const names = await tab.page.getByRole('navigation', { name: 'Views' }).getByRole('link').allTextContents();
      await tab.context.close();
      return names;
    };
    expect(await views(demo.seed.keys.expert)).toEqual(['Approvals', 'For review', 'Runs', 'Ledger', 'Policy']);
    expect(await views(demo.seed.keys.admin)).toEqual(['Approvals', 'For review', 'Runs', 'Ledger', 'Policy']);
    expect(await views(demo.seed.keys.client)).toEqual(['Approvals', 'Runs']);
    expect(await views(demo.seed.keys.agent)).toEqual(['Runs']);
  });

  test('a run started through the API raises an approval in the open inbox; approved, the run page streams the reply', async () => {
    const tab = await open();
    const { page } = tab;
    await signIn(tab, demo.seed.keys.expert);
    await page.getByRole('heading', { name: /Approvals/ }).waitFor();
    await page.getByText('Nothing waits for approval.').waitFor();

    const runId = await startRun(INVOICE_REQUEST);
    // No reload: the card arrives over the approvalRequests subscription.
    const card = page.getByRole('listitem', { name: /invoice\.send/ });
    await card.waitFor();
    await expect(card.locator('.time-left').textContent()).resolves.toMatch(/^(23 h 59 min|24 h 00 min)$/);
    await expect(card.getByLabel('Parameters being approved').textContent()).resolves.toContain('120.5');
    await expect(card.textContent()).resolves.toContain('require_expert_approval');
    await expect(card.textContent()).resolves.toContain('expert keys');
    await card.getByText(/Conversation so far/).click();
    // Read when opened, labelled by role.
    await card.getByRole('list', { name: 'Conversation so far' }).getByText(INVOICE_REQUEST).waitFor();
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'console-inbox.png'), fullPage: true });

    // Keyboard: the reason, then Tab to Approve and Enter.
    await card.getByLabel('Reason').fill('checked the amount');
    await card.getByLabel('Reason').press('Tab');
    await expect(page.evaluate<string | undefined>('document.activeElement?.textContent')).resolves.toBe('Approve');
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached' });

    await page.goto(`${origin()}/console#/runs/${runId}`);
    await page
      .getByTestId('streamed-text')
      .getByText(/Invoice 1037 for 120\.50 USD was sent/)
      .waitFor();
    await page.locator('h1 .badge', { hasText: 'completed' }).waitFor();
    await page.getByLabel('Tool-call timeline').getByText('succeeded').waitFor();
    await expect(page.getByLabel('Tool-call timeline').textContent()).resolves.toContain('invoice.send');
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'console-run.png'), fullPage: true });
    expect(tab.blocked).toEqual([]);
    expect(tab.failures).toEqual([]);
  });

  test('edit parameters, then approve: an edit needing the client is refused and stays pending; a lower amount runs', async () => {
    // The demo org has no rules: invoice.send is the catalog's expert approval at high risk.
    // This rule sends invoices above 1000 to the client, so raising the amount escalates.
    const rule = await demo.app.gql(UPSERT_POLICY_RULE, {
      key: demo.seed.keys.admin,
      variables: {
        input: {
          name: 'Large invoices need the client',
          position: 1,
          toolPattern: 'invoice',
          actionPattern: 'send',
          conditions: [{ path: 'amount', op: 'gt', value: 1000 }],
          risk: 'high',
          decision: 'require_client_approval',
        },
      },
    });
    expect(rule.body.errors).toBeUndefined();

    const tab = await open();
    const { page } = tab;
    await signIn(tab, demo.seed.keys.expert);
    const runId = await startRun(INVOICE_REQUEST);
    const card = page.locator('li.card', { hasText: runId.slice(0, 8) });
    await card.waitFor();
    const approvalId = await card.getAttribute('data-approval-id');
    const callOf = async () => {
      const res = await demo.app.gql<{
        run: {
          pendingApprovalCount: number;
          toolCalls: {
            status: string;
            editedInput: unknown;
            approvalRequest: { id: string; status: string; edited: boolean; editedParams: unknown } | null;
          }[];
        };
      }>(
        'query($id: ID!) { run(id: $id) { pendingApprovalCount toolCalls { status editedInput approvalRequest { id status edited editedParams } } } }',
        {
          key: demo.seed.keys.expert,
          variables: { id: runId },
        },
      );
      const run = res.body.data!.run;
      expect(run.toolCalls).toHaveLength(1);
      return { pending: run.pendingApprovalCount, ...run.toolCalls[0] };
    };

    // Keyboard: focus "Edit parameters", Enter opens the editor: a field per parameter, pre-filled with the stored params.
    const toggle = card.getByRole('button', { name: 'Edit parameters' });
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
    await toggle.focus();
    await page.keyboard.press('Enter');
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
    const amount = card.getByLabel('amount', { exact: true });
    const customer = card.getByLabel('customerId', { exact: true });
    await expect(amount.inputValue()).resolves.toBe('120.5');
    await expect(customer.inputValue()).resolves.toBe('1');
    await expect(card.textContent()).resolves.toContain('hidden values stay as they are');

    // Checked locally: an empty number is named and nothing is sent.
    await amount.fill('');
    await card.getByRole('button', { name: 'Approve with edits' }).click();
    await expect(card.getByRole('alert').textContent()).resolves.toBe('Not a number.');
    // A redaction marker where nothing is hidden is refused by the server, with its code; nothing changed.
    await amount.fill('99');
    await customer.fill('[REDACTED]');
    await card.getByRole('button', { name: 'Approve with edits' }).click();
    const marker = card.getByRole('alert').filter({ hasText: 'APPROVAL_EDIT_REDACTED_VALUE' });
    await marker.waitFor();
    await expect(marker.textContent()).resolves.toContain('/customerId holds "[REDACTED]" where nothing is hidden');
    expect(await callOf()).toMatchObject({ pending: 1, status: 'waiting_approval', approvalRequest: { status: 'pending', edited: false } });
    await customer.fill('1');

    // Raised above 1000 the call would need the client: refused with its code and reason, still pending.
    await amount.fill('5000');
    await card.getByRole('button', { name: 'Approve with edits' }).click();
    const refusal = card.getByRole('alert').filter({ hasText: 'APPROVAL_EDIT_ESCALATES' });
    await refusal.waitFor();
    await expect(refusal.textContent()).resolves.toContain('would need another kind of approver');
    await expect(refusal.textContent()).resolves.toContain('The request is still pending.');
    expect(await callOf()).toMatchObject({
      pending: 1,
      status: 'waiting_approval',
      editedInput: null,
      approvalRequest: { id: approvalId, status: 'pending', edited: false, editedParams: null },
    });
    await expect(card.isVisible()).resolves.toBe(true);
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'console-edit.png'), fullPage: true });

    // Lowered to 99: the same approver at the same risk, accepted; the card leaves the inbox.
    await card.getByLabel('Reason').fill('agreed 99 with the customer');
    await amount.fill('99');
    await expect(card.getByLabel('Your edit, before and after').textContent()).resolves.toContain('120.5');
    await card.getByRole('button', { name: 'Approve with edits' }).click();
    await card.waitFor({ state: 'detached' });

    await page.goto(`${origin()}/console#/runs/${runId}`);
    await page
      .getByTestId('streamed-text')
      .getByText(/Invoice \d+ for 99\.00 USD was sent/)
      .waitFor();
    await page.locator('h1 .badge', { hasText: 'completed' }).waitFor();
    expect(await callOf()).toMatchObject({
      pending: 0,
      status: 'succeeded',
      editedInput: { customerId: '1', amount: 99 },
      approvalRequest: { status: 'approved', edited: true, editedParams: { customerId: '1', amount: 99 } },
    });
    expect(tab.blocked).toEqual([]);
    expect(tab.failures).toEqual([]);
  });

  test('"Show hidden values" shows the real params of a pending call, naming what the stored copy hides; the view is in the ledger', async () => {
    const tab = await open();
    const { page } = tab;
    await signIn(tab, demo.seed.keys.expert);
    await page.getByRole('heading', { name: /Approvals/ }).waitFor();
    // An external run's invoice whose description holds a card number: stored (and shown) redacted.
    const card4111 = '4111 1111 1111 1111';
    const run = await demo.gw.startRun();
    const waiting = await demo.gw.execute(run.id, 'invoice', 'send', { customerId: '1', amount: 50, description: `Paid by card ${card4111}` });
    const card = page.locator('li.card', { hasText: run.id.slice(0, 8) });
    await card.waitFor();
    const stored = card.getByRole('figure', { name: 'Parameters being approved' });
    await expect(stored.textContent()).resolves.toContain('[REDACTED]');
    await expect(card.textContent()).resolves.not.toContain(card4111);

    await card.getByRole('button', { name: 'Show hidden values' }).click();
    const real = card.getByRole('figure', { name: 'Parameters as they will run' });
    await real.waitFor();
    expect(JSON.parse((await real.textContent()) ?? '')).toEqual({ customerId: '1', amount: 50, description: `Paid by card ${card4111}` });
    await expect(card.textContent()).resolves.toContain('Hidden in the stored copy (redacted as a secret or personal data): /description');
    const [view] = await demo.app
      .em()
      .execute<{ actor_role: string }[]>("select actor_role from ledger_events where resource_id = ? and type = 'approval.params_viewed'", [
        waiting.toolCallId,
      ]);
    expect(view).toEqual({ actor_role: 'expert' });
  });

  test('an approval resolved elsewhere is marked at once, with who and why, and leaves when dismissed', async () => {
    const tab = await open();
    await signIn(tab, demo.seed.keys.expert);
    await tab.page.getByRole('heading', { name: /Approvals/ }).waitFor();
    const runId = await startRun(INVOICE_REQUEST);
    const card = tab.page.locator('li.card', { hasText: runId.slice(0, 8) });
    await card.waitFor();
    const approvalId = await card.getAttribute('data-approval-id');
    const res = await demo.app.gql('mutation($id: ID!) { resolveApproval(id: $id, decision: REJECT, reason: "no") { status } }', {
      key: demo.seed.keys.expert,
      variables: { id: approvalId },
    });
    expect(res.body.data).toEqual({ resolveApproval: { status: 'rejected' } });
    await expect(card.getByRole('status').textContent()).resolves.toMatch(/^Rejected elsewhere by expert key tg_expert_[\w-]+: “no”/);
    await card.getByRole('button', { name: 'Dismiss' }).click();
    await card.waitFor({ state: 'detached' });
  });

  test('usable at 390 px: no sideways scrolling, the inbox card and its buttons reachable', async () => {
    const tab = await open({ width: 390, height: 844 });
    await signIn(tab, demo.seed.keys.expert);
    const runId = await startRun(INVOICE_REQUEST);
    const card = tab.page.locator('li.card', { hasText: runId.slice(0, 8) });
    await card.waitFor();
    await card.getByRole('button', { name: 'Reject' }).scrollIntoViewIfNeeded();
    expect(await tab.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await card.getByRole('button', { name: 'Reject' }).click();
    await card.waitFor({ state: 'detached' });
    for (const view of ['runs', 'ledger', 'policy']) {
      await tab.page.goto(`${origin()}/console#/${view}`);
      await tab.page.locator('main h1').waitFor();
      expect(await tab.page.evaluate<number>('document.body.scrollWidth')).toBeLessThanOrEqual(390);
    }
  });

  test('ledger: filter by type, verify shows the result; policy: experts read, admins toggle shadow mode and flags after confirming', async () => {
    const tab = await open();
    await signIn(tab, demo.seed.keys.expert);
    await tab.page.goto(`${origin()}/console#/ledger`);
    // The unfiltered first page, then the filter: its answer replaces those rows.
    await tab.page.locator('tbody tr').first().waitFor();
    await tab.page.getByLabel('Type').fill('run.created');
    await tab.page.getByRole('button', { name: 'Apply' }).click();
    // Until no row of another type is left (the page's CSP allows no string evaluation).
    await tab.page.locator('tbody tr td:nth-child(2)').filter({ hasNotText: 'run.created' }).first().waitFor({ state: 'detached' });
    await tab.page.locator('tbody tr').first().waitFor();
    const types = await tab.page.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(types.length).toBeGreaterThan(0);
    expect(new Set(types)).toEqual(new Set(['run.created']));
    // The actor as people know the key (its name, else role and prefix), not a role word.
    // Waited for: the filtered page may still be replacing the rows read before it.
    await tab.page
      .locator('tbody tr td:nth-child(5)', { hasText: /^client key tg_client_[\w-]+$/ })
      .first()
      .waitFor();
    await tab.page.getByRole('button', { name: 'Verify the chain' }).click();
    await expect(tab.page.getByRole('status').textContent()).resolves.toMatch(/^Intact: \d+ events checked\.$/);

    await tab.page.goto(`${origin()}/console#/policy`);
    const expertSwitch = tab.page.getByRole('checkbox', { name: /Shadow mode/ });
    await expertSwitch.waitFor();
    expect(await expertSwitch.isDisabled()).toBe(true);

    const flag = await demo.app.gql('mutation { setFeatureFlag(key: "console_probe", enabled: true) { enabled } }', { key: demo.seed.keys.admin });
    expect(flag.body.data).toEqual({ setFeatureFlag: { enabled: true } });
    const shadowMode = async () =>
      (
        await demo.app.gql<{ viewer: { org: { policyShadowMode: boolean } } }>('{ viewer { org { policyShadowMode } } }', {
          key: demo.seed.keys.admin,
        })
      ).body.data!.viewer.org.policyShadowMode;
    const admin = await open();
    await signIn(admin, demo.seed.keys.admin);
    await admin.page.goto(`${origin()}/console#/policy`);
    // A risky switch asks first, in a dialog that starts on Cancel; Esc leaves everything as it was.
    await admin.page.getByRole('checkbox', { name: /Shadow mode off/ }).click();
    const ask = admin.page.getByRole('dialog', { name: 'Turn shadow mode on?' });
    await ask.waitFor();
    await expect(admin.page.evaluate<string | undefined>('document.activeElement?.textContent')).resolves.toBe('Cancel');
    await admin.page.keyboard.press('Escape');
    await ask.waitFor({ state: 'hidden' });
    expect(await admin.page.getByRole('checkbox', { name: /Shadow mode off/ }).isChecked()).toBe(false);
    expect(await shadowMode()).toBe(false);
    // Confirmed: the switch shows what the server holds, flipping once the mutation answered.
    await admin.page.getByRole('checkbox', { name: /Shadow mode off/ }).click();
    await ask.getByRole('button', { name: 'Turn shadow mode on' }).click();
    await admin.page.getByRole('checkbox', { name: /Shadow mode on/ }).waitFor();
    expect(await shadowMode()).toBe(true);
    await admin.page.getByRole('checkbox', { name: /Shadow mode on/ }).click();
    await admin.page.getByRole('dialog', { name: 'Turn shadow mode off?' }).getByRole('button', { name: 'Turn shadow mode off' }).click();
    await admin.page.getByRole('checkbox', { name: /Shadow mode off/ }).waitFor();

    // A flag: Cancel leaves it on; confirmed, it goes off.
    const probe = admin.page.getByRole('checkbox', { name: 'console_probe' });
    await probe.click();
    const flagAsk = admin.page.getByRole('dialog', { name: 'Turn console_probe off?' });
    await flagAsk.getByRole('button', { name: 'Cancel' }).click();
    await flagAsk.waitFor({ state: 'hidden' });
    expect(await probe.isChecked()).toBe(true);
    await probe.click();
    await flagAsk.getByRole('button', { name: 'Turn console_probe off' }).click();
    await admin.page.locator('.flags li', { hasText: 'console_probe' }).locator('input:not(:checked)').waitFor();
    const flags = await demo.app.gql<{ viewer: { org: { featureFlags: { key: string; enabled: boolean }[] } } }>(
      '{ viewer { org { featureFlags { key enabled } } } }',
      { key: demo.seed.keys.admin },
    );
    expect(flags.body.data!.viewer.org.featureFlags.find((f) => f.key === 'console_probe')?.enabled).toBe(false);
  });
});
