import type { LedgerFeed } from './ledger-stream';
import { LedgerGroup, type GroupExecution } from './ledger-group';
import { LedgerMember, type SendCounter, type SubscriptionSink } from './ledger-member';

/**
 * Ledger subscriptions over websockets, delivered by group. A group (one org and role, the
 * same operation and arguments, the resume position aside: src/realtime/subscription-fanout.ts)
 * follows the org's ledger once; for each event it runs the filter once, executes and
 * serializes the result once, checks each of its members' keys once, then writes the same
 * JSON text to every member's socket as graphql-ws's `next` message (its envelope made by
 * graphql-ws, see src/realtime/graphql-ws-server.ts), in which only the subscription id differs:
 * a loop over the members that yields every FRAMES_PER_TURN frames, no per-subscriber async
 * pipeline; events that arrive together reach each member as one corked batch (one `writev`).
 * graphql-ws's `onOperation` hook hands a ledger subscription to its group
 * (src/realtime/subscription-fanout.ts, `deliver`).
 *
 * A member that resumes from an earlier sequence first replays the ledger on its own (each
 * frame awaited, so a client that does not read holds only its own replay) until it has
 * reached what the group has delivered, then joins the live loop in the same tick: no gap,
 * nothing twice. Per subscription the protocol is graphql-ws's own: completion by either
 * side, an `error` frame ending it (access lost, SUBSCRIBER_TOO_SLOW), frames in sequence
 * order. A member whose socket has more than SUBSCRIPTION_MAX_LAG_EVENTS frames queued (its
 * client stopped reading) ends with SUBSCRIBER_TOO_SLOW and the sequence to resume after;
 * the frames already queued still reach the client before the error.
 */

/** One app's ledger groups, by group key. */
export class LedgerGroups {
  private readonly groups = new Map<string, LedgerGroup>();

  /** Ledger subscriptions of this app that receive live events (for tests). */
  liveMembers(): number {
    let live = 0;
    for (const group of this.groups.values()) live += group.liveMembers();
    return live;
  }

  /**
   * Starts a member of the group `key` for a websocket subscription; the returned iterator
   * yields nothing (the group writes the frames) and settles when the subscription ends: done
   * when completed, rejected with the error that ended it.
   */
  join(options: {
    key: string;
    feed: LedgerFeed;
    sink: SubscriptionSink;
    /** Made once, by the group's first member (members hold no closure of their own). */
    execution: () => GroupExecution;
    counter: SendCounter;
    closed?: () => void;
  }): AsyncIterableIterator<never> {
    const { key, feed, execution } = options;
    const member = new LedgerMember(options.sink, feed, options.counter, options.closed);
    void member.start(feed.prepare, (filter) => LedgerGroup.join(this.groups, key, feed.ctx, filter, execution));
    return member;
  }
}
