import { useEffect, useState } from 'preact/hooks';
import { ConsoleApprovalEventsDocument } from '../../../gql/graphql';
import type { Session } from '../main';

/** Remembered per browser: the reviewer opted in once, the console keeps notifying after a reload. */
const OPTED_IN = 'toolgate.notifyHighRisk';

const supported = (): boolean => typeof window.Notification === 'function';
const optedIn = (): boolean => supported() && localStorage.getItem(OPTED_IN) === 'on' && Notification.permission === 'granted';

/**
 * Opt-in browser notifications for high-risk requests. The browser is asked for permission
 * only when the reviewer presses the button; once granted, every live `requested` event of
 * the queue whose call is high risk raises a notification (one per approval: its id is the tag).
 */
export function HighRiskAlerts({ session }: { session: Session }) {
  const { api, can } = session;
  const [on, setOn] = useState(optedIn);
  const [refused, setRefused] = useState(false);
  useEffect(() => {
    if (!on) return;
    // Live only (no afterSequence): a notification is about what arrives now, not the queue's history.
    return api.subscribe(
      ConsoleApprovalEventsDocument,
      { audit: can.audit, kind: can.inboxKind, afterSequence: null },
      ({ approvalRequests: event }) => {
        const request = event.approvalRequest;
        if (event.change !== 'requested' || !request || event.toolCall.riskLevel !== 'high') return;
        new Notification(`High-risk approval: ${event.toolCall.toolName}.${event.toolCall.action}`, {
          body: `Run ${request.runId.slice(0, 8)} waits for ${request.kind} approval.`,
          tag: request.id,
        });
      },
      () => {},
    );
  }, [api, can, on]);
  if (!supported()) return null;
  const enable = async () => {
    const permission = await Notification.requestPermission();
    setRefused(permission !== 'granted');
    if (permission !== 'granted') return;
    localStorage.setItem(OPTED_IN, 'on');
    setOn(true);
  };
  const disable = () => {
    localStorage.removeItem(OPTED_IN);
    setOn(false);
  };
  return (
    <p class="alerts">
      {on ? (
        <button type="button" onClick={disable}>
          Stop high-risk notifications
        </button>
      ) : (
        <button type="button" onClick={enable}>
          Notify me of high-risk requests
        </button>
      )}
      {refused && <span class="hint"> The browser did not allow notifications (see its site settings).</span>}
    </p>
  );
}
