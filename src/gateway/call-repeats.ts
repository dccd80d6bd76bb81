import type { SqlTransaction } from '../db/raw-transaction';

/**
 * A request without a key of its own that repeats a call needing approval joins that call.
 * The lock on (run, fingerprint) is held until the deciding transaction commits, so of any
 * number of identical requests arriving together one records the call and its approval and
 * the others, after it, find it: one pending approval per call, whatever the concurrency.
 * Taken before the run's row and the org's ledger lock, as nothing takes it after them.
 */
export async function joinRepeatedCall(tx: SqlTransaction, runId: string, fingerprint: string): Promise<string | null> {
  await tx.execute('select pg_advisory_xact_lock(hashtext(?), hashtext(?))', [runId, fingerprint]);
  // The latest call of that content that asked for approval: waiting, approved, ran, or refused by a person.
  const [row] = await tx.execute<{ id: string }[]>(
    `select c.id from tool_calls c
      where c.run_id = ? and c.fingerprint = ? and exists (select 1 from approval_requests a where a.tool_call_id = c.id)
      order by c.created_at desc limit 1`,
    [runId, fingerprint],
  );
  return row?.id ?? null;
}
