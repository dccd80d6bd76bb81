import type { Browser } from 'playwright-core';
import { useDemoApp } from '../support/demo-fixture';
import { UPSERT_POLICY_RULE } from '../support/documents';
import { describeInBrowser, launchChromium, offlinePage, type OfflinePage } from './browser';

/**
 * The inbox card of a quorum approval with an escalation ladder (issue 33, items 3 and 4) in a
 * real chromium: "0 of 2 approvals" and the time left in the current step; another expert's
 * vote moves it to "1 of 2" live; this reviewer's approval completes it and the card leaves.
 */
const ENV = { ANTHROPIC_MODEL: 'claude-offline-1', ANTHROPIC_MAX_RETRIES: '0' };
const INVOICE_REQUEST = 'Please send an invoice for $120.50 to customer 1';

jest.setTimeout(90_000);

describeInBrowser('quorum approvals in the console', () => {
  const demo = useDemoApp(ENV, { sandboxes: true, offlineModel: true, worker: true });
  let browser: Browser;
  let tab: OfflinePage | undefined;
  const origin = () => new URL(demo.app.url).origin;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await tab?.context.close();
    await browser?.close();
  });

  test('the card shows the quorum and the step; a vote elsewhere moves it live; the last approval takes it off', async () => {
    const rule = await demo.app.gql(UPSERT_POLICY_RULE, {
      key: demo.seed.keys.admin,
      variables: {
        input: {
          name: 'Two experts, on-call after 15 minutes, deny after 2 hours',
          position: 0,
          toolPattern: 'invoice',
          actionPattern: 'send',
          risk: 'high',
          decision: 'require_expert_approval',
          quorum: 2,
          escalation: [{ afterSeconds: 900, role: 'expert', group: 'oncall' }],
          expireAfterSeconds: 7200,
        },
      },
    });
    expect(rule.body.errors).toBeUndefined();
    const second = await demo.app.gql<{ createApiKey: { secret: string } }>(
      'mutation { createApiKey(role: expert, name: "second expert") { secret } }',
      {
        key: demo.seed.keys.admin,
      },
    );

    tab = await offlinePage(browser);
    const { page } = tab;
    await page.goto(`${origin()}/console`);
    await page.getByLabel('API key').fill(demo.seed.keys.expert);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Approvals/ }).waitFor();

    const run = await demo.app.gql<{ startAgentRun: { id: string } }>(
      'mutation($s: ID!, $m: String!) { startAgentRun(input: { specialistId: $s, message: $m }) { id } }',
      { key: demo.seed.keys.client, variables: { s: demo.seed.specialistId, m: INVOICE_REQUEST } },
    );
    const runId = run.body.data!.startAgentRun.id;
    const card = page.locator('li.card', { hasText: runId.slice(0, 8) });
    await card.waitFor();
    await expect(card.locator('.quorum').textContent()).resolves.toBe('0 of 2 approvals');
    await expect(card.locator('.step-left').textContent()).resolves.toMatch(/^step 1 of 2: 1[45] min \d\d s left in this step$/);

    const approvalId = await card.getAttribute('data-approval-id');
    const vote = await demo.app.gql('mutation($id: ID!) { resolveApproval(id: $id, decision: APPROVE) { status approvals } }', {
      key: second.body.data!.createApiKey.secret,
      variables: { id: approvalId },
    });
    expect(vote.body.data).toEqual({ resolveApproval: { status: 'pending', approvals: 1 } });
    // No reload: the vote arrives over the approvalRequests subscription.
    await card.locator('.quorum', { hasText: '1 of 2 approvals' }).waitFor();

    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await card.waitFor({ state: 'detached' });
    expect(tab.failures).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
  });
});
