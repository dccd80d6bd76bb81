import path from 'node:path';
import type { Browser } from 'playwright-core';
import { EXPERT_AMOUNT, requestInvoice, startRun, useFlow } from '../approvals/approval-flow';
import { errorCode } from '../support/app';
import { describeInBrowser, launchChromium, offlinePage, type OfflinePage } from './browser';

/**
 * The console's policy editor in chromium: an admin drafts rules (a history rule among them),
 * reorders them, replays the draft over the calls the flow recorded, reads what would have been
 * decided otherwise, and publishes it with that replay; with the org requiring replays, the
 * console offers no way to publish without one and the API refuses it.
 */
jest.setTimeout(90_000);

/** CONSOLE_SCREENSHOTS=1 writes docs/console-policy-editor.png and docs/console-policy-replay.png. */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';
const DOCS = path.join(__dirname, '..', '..', 'docs');

const HISTORY_RULE = 'At most 1 invoice per run';
const FLOW_RULE = 'Large invoices need the client';
const RULES = '{ policyRules { name position history { kind tool scope limit } } }';

describeInBrowser('policy editor in chromium', () => {
  const flow = useFlow();
  let browser: Browser;
  const opened: OfflinePage[] = [];
  const origin = () => new URL(flow.app.url).origin;

  beforeAll(async () => {
    browser = await launchChromium();
    // History to replay: one run asks for two invoices, each waiting for an expert (high risk).
    const runId = await startRun(flow);
    expect((await requestInvoice(flow, runId)).status).toBe('waiting_approval');
    const second = await requestInvoice(flow, runId, { customerId: '1', amount: EXPERT_AMOUNT + 1 });
    expect(second.status).toBe('waiting_approval');
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    for (const { context } of opened.splice(0)) await context.close();
  });

  async function openPolicy(key: string): Promise<OfflinePage> {
    const tab = await offlinePage(browser, { width: 1280, height: 900 });
    opened.push(tab);
    await tab.page.goto(`${origin()}/console`);
    await tab.page.getByLabel('API key').fill(key);
    await tab.page.keyboard.press('Enter');
    await tab.page.getByLabel('Signed in as').waitFor();
    await tab.page.goto(`${origin()}/console#/policy`);
    await tab.page.getByRole('heading', { name: /^Rules, in evaluation order/ }).waitFor();
    return tab;
  }

  const names = (tab: OfflinePage) => tab.page.locator('tbody tr td:nth-child(2)').allTextContents();
  /** Until the first rule row names `name` (Preact renders after the click's handler). */
  const firstRuleIs = (tab: OfflinePage, name: string) =>
    tab.page.locator('tbody tr:first-child td:nth-child(2)', { hasText: new RegExp(`^${name}`) }).waitFor();
  const ruleNames = async () =>
    (await flow.app.gql<{ policyRules: { name: string }[] }>(RULES, { key: flow.keys.admin })).body.data!.policyRules.map((r) => r.name);

  test('an admin adds a history rule, moves it first, replays it over recorded calls, reads the changes and publishes', async () => {
    const tab = await openPolicy(flow.keys.admin);
    const { page } = tab;
    await page.getByRole('button', { name: 'Add a rule' }).click();
    const form = page.getByRole('form', { name: 'New rule' });
    await form.getByLabel('Rule name').fill(HISTORY_RULE);
    await form.getByLabel('Tool pattern').fill('invoice');
    await form.getByLabel('Action pattern').fill('send');
    await form.getByRole('button', { name: 'Add a history condition' }).click();
    await form.getByLabel('History 1 kind').selectOption('count');
    await form.getByLabel('History 1 tool').fill('invoice');
    await form.getByLabel('History 1 scope').selectOption('run');
    await form.getByLabel('History 1 limit').fill('1');
    await form.getByLabel('Decision').selectOption('block');
    await form.getByLabel('Risk').selectOption('high');
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'console-policy-editor.png'), fullPage: true });
    await form.getByRole('button', { name: 'Save to draft' }).click();
    await form.waitFor({ state: 'detached' });

    // A draft: last until moved, nothing saved yet.
    expect(await names(tab)).toEqual([FLOW_RULE, `${HISTORY_RULE} (new)`]);
    await page.getByRole('button', { name: `Move ${HISTORY_RULE} up` }).click();
    await firstRuleIs(tab, HISTORY_RULE);
    expect(await names(tab)).toEqual([`${HISTORY_RULE} (new)`, FLOW_RULE]);
    expect(await ruleNames()).toEqual([FLOW_RULE]);

    await page.getByRole('button', { name: 'Replay the last 30 days' }).click();
    const changes = page.getByRole('table', { name: 'Changed decisions' });
    await changes.waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toMatch(
      /Replayed 2 recorded call\(s\) of the last 30 days: 1 decided otherwise, 0 undecidable/,
    );
    expect(await changes.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^1\s+require_expert_approval\s+block\s+#1 At most 1 invoice per run$/),
    ]);
    const example = page.getByRole('table', { name: 'Example calls' }).locator('tbody tr');
    expect(await example.count()).toBe(1);
    await expect(example.first().textContent()).resolves.toMatch(
      /invoice\.send[\s\S]*require_expert_approval[\s\S]*block\s*#1 At most 1 invoice per run/,
    );

    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'console-policy-replay.png'), fullPage: true });
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('dialog', { name: 'Publish the draft?' }).getByRole('button', { name: 'Publish' }).click();
    await page.getByText(/^Published: policy version \d+\.$/).waitFor();
    expect(await ruleNames()).toEqual([HISTORY_RULE, FLOW_RULE]);
    const [published] = (await flow.app.gql<{ policyRules: { history: unknown[] }[] }>(RULES, { key: flow.keys.admin })).body.data!.policyRules;
    expect(published.history).toEqual([{ kind: 'count', tool: 'invoice', scope: 'run', limit: 1 }]);
    expect(await names(tab)).toEqual([HISTORY_RULE, FLOW_RULE]);
    expect(tab.failures).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });

  test('with the org requiring replays, publishing without one is impossible in the console and refused by the API', async () => {
    const set = await flow.app.gql('mutation { setPolicyReplayRequired(required: true) }', { key: flow.keys.admin });
    expect(set.body.errors).toBeUndefined();
    try {
      const tab = await openPolicy(flow.keys.admin);
      const { page } = tab;
      await page.getByRole('checkbox', { name: 'Replay required before publishing on' }).waitFor();
      await page.getByRole('button', { name: `Move ${HISTORY_RULE} down` }).click();
      await firstRuleIs(tab, FLOW_RULE);
      await page.getByText('This organization requires a replay: replay this draft before publishing it.').waitFor();
      const publish = page.getByRole('button', { name: 'Publish', exact: true });
      expect(await publish.isDisabled()).toBe(true);

      // The same draft straight to the API, without a replay: refused, nothing changed.
      const rules = (
        await flow.app.gql<{ policyRules: Record<string, unknown>[] }>(
          '{ policyRules { id name toolPattern actionPattern risk decision enabled roles conditions { path op value } } }',
          { key: flow.keys.admin },
        )
      ).body.data!.policyRules;
      const draft = [...rules].reverse().map((r, i) => ({ ...r, position: (i + 1) * 10 }));
      const refused = await flow.app.gql('mutation($r: [PolicyRuleInput!]!) { publishPolicy(rules: $r) { policyVersion } }', {
        key: flow.keys.admin,
        variables: { r: draft },
      });
      expect(errorCode(refused)).toBe('POLICY_REPLAY_REQUIRED');
      expect(await ruleNames()).toEqual([HISTORY_RULE, FLOW_RULE]);

      // Replayed in the console, the draft publishes.
      await page.getByRole('button', { name: 'Replay the last 30 days' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /^Replayed/ })
        .waitFor();
      // A click waits for the button to be enabled (the view reloads the policy after the replay).
      await publish.click();
      await page.getByRole('dialog', { name: 'Publish the draft?' }).getByRole('button', { name: 'Publish' }).click();
      await page.getByText(/^Published: policy version \d+\.$/).waitFor();
      expect(await ruleNames()).toEqual([FLOW_RULE, HISTORY_RULE]);
      expect(tab.consoleErrors).toEqual([]);
    } finally {
      await flow.app.gql('mutation { setPolicyReplayRequired(required: false) }', { key: flow.keys.admin });
    }
  });

  test("a publish keeps an approval rule's quorum and ladder, and the form edits them", async () => {
    const QUORUM_RULE = 'Two experts for big invoices';
    const saved = await flow.app.gql('mutation($input: PolicyRuleInput!) { upsertPolicyRule(input: $input) { id } }', {
      key: flow.keys.admin,
      variables: {
        input: {
          name: QUORUM_RULE,
          position: 5,
          toolPattern: 'invoice',
          actionPattern: 'send',
          conditions: [{ path: 'amount', op: 'gt', value: 10000 }],
          risk: 'high',
          decision: 'require_expert_approval',
          quorum: 2,
          escalation: [{ afterSeconds: 900, role: 'expert', group: 'oncall' }],
          expireAfterSeconds: 7200,
        },
      },
    });
    expect(saved.body.errors).toBeUndefined();
    const tab = await openPolicy(flow.keys.admin);
    const { page } = tab;
    await page.getByRole('button', { name: `Edit ${QUORUM_RULE}` }).click();
    const form = page.getByRole('form', { name: `Edit rule: ${QUORUM_RULE}` });
    expect(await form.getByLabel('Approvers required (1–5)').inputValue()).toBe('2');
    expect(await form.getByLabel('Step 1 group paged (empty: none)').inputValue()).toBe('oncall');
    await form.getByLabel('Approvers required (1–5)').fill('3');
    await form.getByRole('button', { name: 'Save to draft' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Replay the last 30 days' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Replayed/ })
      .waitFor();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('dialog', { name: 'Publish the draft?' }).getByRole('button', { name: 'Publish' }).click();
    await page.getByText(/^Published: policy version \d+\.$/).waitFor();
    const rules = (
      await flow.app.gql<{ policyRules: { name: string; quorum: number; escalation: unknown[]; expireAfterSeconds: number | null }[] }>(
        '{ policyRules { name quorum escalation { afterSeconds role group } expireAfterSeconds } }',
        { key: flow.keys.admin },
      )
    ).body.data!.policyRules;
    expect(rules.find((r) => r.name === QUORUM_RULE)).toEqual({
      name: QUORUM_RULE,
      quorum: 3,
      escalation: [{ afterSeconds: 900, role: 'expert', group: 'oncall' }],
      expireAfterSeconds: 7200,
    });
    expect(tab.consoleErrors).toEqual([]);
  });

  test('an expert reads the rules and cannot edit them', async () => {
    const tab = await openPolicy(flow.keys.expert);
    await tab.page.getByText('Read only: admin keys edit the policy.').waitFor();
    expect(await tab.page.getByRole('button', { name: 'Add a rule' }).count()).toBe(0);
    expect(await tab.page.getByRole('button', { name: 'Replay the last 30 days' }).count()).toBe(0);
    expect(await tab.page.getByRole('checkbox', { name: `Rule ${HISTORY_RULE} enabled` }).isDisabled()).toBe(true);
  });
});
