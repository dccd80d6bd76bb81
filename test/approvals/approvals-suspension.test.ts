import { errorCode } from '../support/app';
import { resumeOrg, suspendOrg } from '../../src/orgs/org-suspension.service';
import { runtimeCaller } from '../../src/auth/caller';
import { executeApproved, nangoRequests, resolve, rowsOf, useFlow, waitingCall } from './approval-flow';

/**
 * An approved call of a suspended org does not run: the gateway refuses it with
 * ORG_SUSPENDED before claiming it, so it stays approved and runs once after the org is
 * resumed. The org's keys are refused meanwhile (the external agent cannot even ask).
 */
const flow = useFlow();

test('an approved call waits out a suspension: refused ORG_SUSPENDED, still approved, no vendor request; after resume it runs once', async () => {
  const waiting = await waitingCall(flow, 'expert');
  expect((await resolve(flow, flow.keys.expert, waiting.approvalId, 'APPROVE')).body.errors).toBeUndefined();
  expect((await rowsOf(flow.app, waiting.toolCallId)).call.status).toBe('approved');

  await suspendOrg(flow.app.em(), flow.orgId, null);
  const requestsBefore = nangoRequests(flow.app);
  try {
    expect(errorCode(await executeApproved(flow, waiting.toolCallId))).toBe('ORG_SUSPENDED');
    // The runtime's own path (no key) is refused by the gateway itself.
    await expect(flow.app.services.gateway.executeApproved(waiting.toolCallId, runtimeCaller(flow.orgId))).rejects.toMatchObject({
      code: 'ORG_SUSPENDED',
    });
    expect((await rowsOf(flow.app, waiting.toolCallId)).call.status).toBe('approved');
    expect(nangoRequests(flow.app)).toBe(requestsBefore);
  } finally {
    await resumeOrg(flow.app.em(), flow.orgId);
  }

  const ran = await executeApproved(flow, waiting.toolCallId);
  expect(ran.body.data!.executeApprovedToolCall).toMatchObject({ status: 'succeeded' });
  expect(nangoRequests(flow.app)).toBeGreaterThan(requestsBefore);
});
