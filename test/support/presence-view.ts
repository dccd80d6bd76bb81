import type { TestApp } from './app';
import { socket } from './graphql-http';

const PRESENCE = 'subscription($id: ID!) { approvalPresence(approvalId: $id) { approvalId viewers { name role you } } }';

export interface PresenceSnapshot {
  approvalId: string;
  viewers: { name: string; role: string; you: boolean }[];
}

/**
 * One view of an approval (an open approvalPresence subscription): every snapshot it was
 * sent, its errors, and waits for a snapshot that satisfies a test (failing, with the last
 * snapshot, after `waitMs`).
 */
export function presenceView(app: TestApp, key: string, approvalId: string, waitMs = 5000) {
  const ws = socket(app.wsUrl, key);
  const snapshots: PresenceSnapshot[] = [];
  const errors: { extensions?: { code?: string } }[][] = [];
  const waiters: (() => void)[] = [];
  const notify = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  ws.client.subscribe<{ approvalPresence: PresenceSnapshot }>(
    { query: PRESENCE, variables: { id: approvalId } },
    {
      next: ({ data, errors: failed }) => {
        if (failed) errors.push(failed as never);
        if (data) snapshots.push(data.approvalPresence);
        notify();
      },
      error: (error) => {
        errors.push(error as never);
        notify();
      },
      complete: notify,
    },
  );
  const last = () => snapshots.at(-1);
  const until = async (ok: () => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + waitMs;
    while (!ok()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`presence: never saw ${what}; last snapshot ${JSON.stringify(last())}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  const names = () =>
    JSON.stringify(
      last()
        ?.viewers.map((v) => v.name)
        .sort(),
    );
  return {
    snapshots,
    errors,
    last,
    /** Waits for the snapshot that names exactly these viewers. */
    seeing: (expected: string[]) => until(() => names() === JSON.stringify([...expected].sort()), JSON.stringify(expected)),
    failed: () => until(() => errors.length > 0, 'an error'),
    close: ws.close,
  };
}
