import { useEffect, useState } from 'preact/hooks';
import { ConsoleApprovalPresenceDocument } from '../../../gql/graphql';
import type { Session } from '../main';

/**
 * "Also looking: …" on a card: the other reviewers who have this approval open. The
 * subscription is this reviewer's own presence too (it counts while the card is on screen,
 * and stops when the card leaves); graphql-ws opens it again after a reconnect.
 */
export function AlsoLooking({ approvalId, session }: { approvalId: string; session: Session }) {
  const [others, setOthers] = useState<string[]>([]);
  useEffect(
    () =>
      session.api.subscribe(
        ConsoleApprovalPresenceDocument,
        { approvalId },
        ({ approvalPresence }) => setOthers([...new Set(approvalPresence.viewers.filter((v) => !v.you).map((v) => v.name))]),
        // Presence is a courtesy: when it cannot be followed, say nothing rather than something stale.
        () => setOthers([]),
      ),
    [session.api, approvalId],
  );
  if (others.length === 0) return null;
  return (
    <p class="presence" data-testid="also-looking">
      Also looking: {others.join(', ')}
    </p>
  );
}
