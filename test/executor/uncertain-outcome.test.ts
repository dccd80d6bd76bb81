import { useDemoApp } from '../support/demo-fixture';
import { ManualClock } from '../support/clock';
import { EXECUTE_APPROVED_TOOL_CALL, RESOLVE_APPROVAL, jsonAs } from '../support/documents';
import type { Fault } from '../../src/vendors/sandbox/sandbox-server';
import type { NangoSandbox } from '../../src/vendors/nango/nango.sandbox';
import { QBO_DEMO_CUSTOMERS } from '../../src/vendors/nango/nango.sandbox-data';
import type { CallAnswerFragment } from '../gql/graphql';
import { Feed, closeSockets, connect, ledgerHead } from '../realtime/realtime-helpers';

/**
 * A non-idempotent call whose outcome is uncertain — the vendor answered after the timeout,
 * the connection dropped after the request was sent, a 5xx from a gateway in front of the
 * vendor, or a later step of a multi-request action failed — is settled by asking the vendor
 * with the call's idempotency key, as a crash is: succeeded with the vendor's result, failed
 * VENDOR_NOT_PERFORMED, or VENDOR_OUTCOME_UNKNOWN for review. The customer's repeat (the
 * same request again in the same run, approved again) finds the invoice instead of making a
 * second one. Everything through GraphQL → gateway → executor → the QuickBooks sandbox over
 * HTTP, on a manual clock shared by the executor and the sandbox: the sandbox's 11 s answer
 * moves the clock past the 10 s timeout at once, and the wait before the lookup passes at once.
 */
const TIMEOUT_MS = 10_000;
const clock = new ManualClock();
const demo = useDemoApp(
  { VENDOR_TIMEOUT_MS: String(TIMEOUT_MS), VENDOR_RETRY_BASE_MS: '1', VENDOR_RETRY_MAX_DELAY_MS: '5', VENDOR_BREAKER_THRESHOLD: '1000' },
  { sandboxes: true, clock, beforeClose: closeSockets },
);

let nango: NangoSandbox;
beforeAll(() => {
  nango = demo.app.sandbox!.sandbox<NangoSandbox>('nango')!;
});
beforeEach(() => {
  demo.app.sandbox!.clearFaults();
  demo.app.sandbox!.requests.length = 0;
  nango.reset();
});

const PARAMS = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 120.5, currency: 'USD', email: 'ap@amys.example' };
/** The create (`POST …/invoice?requestid=…`), not the email (`…/invoice/<id>/send`) nor a query. */
const CREATE = '/invoice?';
const SEND = '/send';
const INVOICE_QUERY = 'select * from Invoice';

interface Invoice {
  invoiceId: string;
  docNumber: string | null;
  emailStatus: string;
  sentTo: string | null;
  partial?: string;
  repeated?: boolean;
}

/** invoice.send in `runId` as the agent, approved by the expert, then executed: its answer. */
async function approvedInvoice(runId: string, params: Record<string, unknown> = PARAMS): Promise<CallAnswerFragment> {
  const waiting = await demo.gw.execute(runId, 'invoice', 'send', params);
  expect(waiting.status).toBe('waiting_approval');
  await demo.gw.ok(RESOLVE_APPROVAL, { id: waiting.approvalRequestId!, decision: 'APPROVE', reason: 'ok' }, demo.seed.keys.expert);
  const executed = await demo.gw.ok(EXECUTE_APPROVED_TOOL_CALL, { id: waiting.toolCallId }, demo.seed.keys.agent);
  return executed.executeApprovedToolCall;
}

const fault = (f: Fault, pathIncludes: string, times = 1) => demo.app.sandbox!.injectFault('nango', f, { pathIncludes, times });
const outcomeEvent = async (id: string) => {
  const call = await demo.gw.call(id);
  const [event] = call.ledgerEvents.filter((e) => e.type === 'tool_call.succeeded' || e.type === 'tool_call.failed');
  return { call, event: { type: event.type, ...event.metadata } };
};
const creates = () => demo.app.sandbox!.requests.filter((r) => r.vendor === 'nango' && r.method === 'POST' && /\/invoice$/.test(r.path));

describe('an uncertain outcome is settled by asking the vendor', () => {
  test('11 s answer against a 10 s timeout: settled succeeded by the lookup; the customer’s repeat creates no second invoice', async () => {
    const run = await demo.gw.startRun();
    fault({ kind: 'slow', delayMs: 11_000 }, CREATE);
    const answer = await approvedInvoice(run.id);

    // QuickBooks created (and, on the lookup, emailed) the invoice once; the model is told so.
    expect(answer).toMatchObject({ status: 'succeeded', error: null });
    const effects = nango.effects();
    expect(effects).toEqual([expect.objectContaining({ requestId: `toolgate-${answer.toolCallId}`, emailsSent: 1 })]);
    expect(jsonAs<Invoice>(answer.result)).toMatchObject({ invoiceId: effects[0].invoiceId, emailStatus: 'EmailSent', sentTo: PARAMS.email });
    const { call, event } = await outcomeEvent(answer.toolCallId);
    expect(call).toMatchObject({ status: 'succeeded', reviewRequired: false, errorCode: null });
    expect(event).toMatchObject({ type: 'tool_call.succeeded', reconciled: 'vendor_confirmed', uncertain: 'timeout' });

    // The customer asks again; the expert approves again: the existing invoice is found, nothing new is made.
    const repeat = await approvedInvoice(run.id);
    expect(repeat).toMatchObject({ status: 'succeeded', error: null });
    expect(repeat.toolCallId).not.toBe(answer.toolCallId);
    expect(jsonAs<Invoice>(repeat.result)).toMatchObject({ invoiceId: effects[0].invoiceId, emailStatus: 'EmailSent', repeated: true });
    expect(nango.effects()).toEqual([expect.objectContaining({ invoiceId: effects[0].invoiceId, emailsSent: 1 })]);
    expect(creates()).toHaveLength(1);
  });

  test('503 on the email step: recorded as created-but-not-emailed, resumed with the same requestid, emailed once', async () => {
    const run = await demo.gw.startRun();
    fault({ kind: 'status', status: 503 }, SEND);
    const answer = await approvedInvoice(run.id);

    expect(answer).toMatchObject({ status: 'succeeded', error: null });
    expect(jsonAs<Invoice>(answer.result)).toMatchObject({ emailStatus: 'EmailSent', sentTo: PARAMS.email });
    expect(nango.effects()).toEqual([expect.objectContaining({ requestId: `toolgate-${answer.toolCallId}`, emailsSent: 1 })]);
    const { event } = await outcomeEvent(answer.toolCallId);
    expect(event).toMatchObject({
      type: 'tool_call.succeeded',
      partial: 'created_not_emailed',
      resumed: true,
      reconciled: 'vendor_confirmed',
      uncertain: '503',
    });
    const sends = demo.app.sandbox!.requests.filter((r) => r.path.endsWith(SEND));
    expect(sends.map((r) => [r.query.get('requestid'), r.fault])).toEqual([
      [`toolgate-${answer.toolCallId}-send`, 'status'],
      [`toolgate-${answer.toolCallId}-send`, null],
    ]);
  });

  test('503 on every email attempt: reported as created but not emailed, for review; the repeat finishes the email on the same invoice', async () => {
    const run = await demo.gw.startRun();
    const experts = new Feed<{ change: string; toolCall: { id: string; status: string; reviewRequired: boolean } }>(
      connect(demo.app.wsUrl, demo.seed.keys.expert).client,
      'subscription($after: String) { approvalRequests(afterSequence: $after) { change toolCall { id status reviewRequired } } }',
      { after: await ledgerHead(demo.app, demo.seed.orgId) },
      'approvalRequests',
    );
    fault({ kind: 'status', status: 503 }, SEND, 20);
    const answer = await approvedInvoice(run.id);

    const [effect] = nango.effects();
    expect(effect).toMatchObject({ emailsSent: 0 });
    expect(answer).toMatchObject({ status: 'succeeded', error: null });
    expect(jsonAs<Invoice>(answer.result)).toMatchObject({
      invoiceId: effect.invoiceId,
      emailStatus: 'NotSet',
      sentTo: null,
      partial: 'created_not_emailed',
    });
    const { call, event } = await outcomeEvent(answer.toolCallId);
    expect(call).toMatchObject({ status: 'succeeded', reviewRequired: true });
    expect(event).toMatchObject({ partial: 'created_not_emailed', resumed: false });
    // The experts' feed shows it to finish (after the approval's own items).
    await experts.count(3, 'requested, approved, review_required');
    expect(experts.items.at(-1)).toEqual({
      change: 'review_required',
      toolCall: { id: answer.toolCallId, status: 'succeeded', reviewRequired: true },
    });

    demo.app.sandbox!.clearFaults();
    const repeat = await approvedInvoice(run.id);
    expect(jsonAs<Invoice>(repeat.result)).toMatchObject({ invoiceId: effect.invoiceId, emailStatus: 'EmailSent', repeated: true });
    expect(nango.effects()).toEqual([expect.objectContaining({ invoiceId: effect.invoiceId, emailsSent: 1 })]);
  });

  test.each([
    ['a 502 after QuickBooks created it', { kind: 'after_effect', status: 502 } as const, '502'],
    ['a 504 after QuickBooks created it', { kind: 'after_effect', status: 504 } as const, '504'],
    ['a connection reset after QuickBooks created it', { kind: 'after_effect', status: null } as const, 'connection_reset'],
  ])('%s: succeeded by the lookup, one invoice, one email', async (_, create, cause) => {
    const run = await demo.gw.startRun();
    fault(create as Fault, CREATE);
    const answer = await approvedInvoice(run.id);
    expect(answer).toMatchObject({ status: 'succeeded', error: null });
    expect(nango.effects()).toEqual([expect.objectContaining({ requestId: `toolgate-${answer.toolCallId}`, emailsSent: 1 })]);
    expect((await outcomeEvent(answer.toolCallId)).event).toMatchObject({ reconciled: 'vendor_confirmed', uncertain: cause });
  });

  test('a connection reset before QuickBooks acted: failed VENDOR_NOT_PERFORMED (may be asked again); the repeat creates one invoice', async () => {
    const run = await demo.gw.startRun();
    fault({ kind: 'reset' }, CREATE);
    const answer = await approvedInvoice(run.id);
    expect(answer).toMatchObject({ status: 'failed', error: { code: 'VENDOR_NOT_PERFORMED' } });
    expect(nango.effects()).toEqual([]);
    const { call, event } = await outcomeEvent(answer.toolCallId);
    expect(call).toMatchObject({ status: 'failed', errorCode: 'VENDOR_NOT_PERFORMED', reviewRequired: false });
    expect(event).toMatchObject({ reconciled: 'vendor_not_performed', uncertain: 'connection_reset' });

    const repeat = await approvedInvoice(run.id);
    expect(repeat.status).toBe('succeeded');
    expect(jsonAs<Invoice>(repeat.result).repeated).toBeUndefined();
    expect(nango.effects()).toEqual([expect.objectContaining({ requestId: `toolgate-${repeat.toolCallId}`, emailsSent: 1 })]);
  });

  test('the vendor cannot be asked (lookups 503): VENDOR_OUTCOME_UNKNOWN for review; the later repeat finds the invoice', async () => {
    const run = await demo.gw.startRun();
    fault({ kind: 'slow', delayMs: 11_000 }, CREATE);
    // No earlier request of the run to look for: the create goes out at once; every lookup after it fails.
    fault({ kind: 'status', status: 503 }, INVOICE_QUERY, 100);
    const answer = await approvedInvoice(run.id);
    expect(answer).toMatchObject({ status: 'failed', error: { code: 'VENDOR_OUTCOME_UNKNOWN' } });
    const { call, event } = await outcomeEvent(answer.toolCallId);
    expect(call).toMatchObject({ errorCode: 'VENDOR_OUTCOME_UNKNOWN', reviewRequired: true });
    expect(event).toMatchObject({ reconciled: 'vendor_outcome_unknown', uncertain: 'timeout' });
    const [effect] = nango.effects();

    demo.app.sandbox!.clearFaults();
    const repeat = await approvedInvoice(run.id);
    expect(jsonAs<Invoice>(repeat.result)).toMatchObject({ invoiceId: effect.invoiceId, repeated: true, emailStatus: 'EmailSent' });
    expect(nango.effects()).toEqual([expect.objectContaining({ invoiceId: effect.invoiceId, emailsSent: 1 })]);
  });

  test('a 503 on the create is a refusal, not an uncertainty: VENDOR_ERROR at once, no lookup', async () => {
    const run = await demo.gw.startRun();
    fault({ kind: 'status', status: 503 }, CREATE);
    const answer = await approvedInvoice(run.id);
    expect(answer).toMatchObject({ status: 'failed', error: { code: 'VENDOR_ERROR' } });
    expect(nango.effects()).toEqual([]);
    // No lookup after the refusal (and no look before the create: no earlier request of the run).
    expect(demo.app.sandbox!.requests.filter((r) => r.path.endsWith('/query'))).toHaveLength(0);
  });
});
