import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LEDGER_RECORD_SELECT, ledgerHash, type LedgerRecord } from './ledger-hash';

export type LedgerProblem = 'sequence_gap' | 'broken_link' | 'hash_mismatch' | 'head_mismatch' | 'truncated' | 'checkpoint_mismatch';

export interface LedgerVerification {
  orgId: string;
  ok: boolean;
  eventsChecked: number;
  /** The first event whose sequence, link, hash, head or checkpoint is wrong (or the first missing one); null when the chain holds. */
  firstBadSequence: string | null;
  /** Null as well when the first bad sequence is missing (`truncated`). */
  firstBadEventId: string | null;
  problem: LedgerProblem | null;
}

/** A point of an org's chain known from outside (a signed checkpoint's entry). */
export interface ChainAnchor {
  sequence: string;
  hash: string;
}

const BATCH = 1000;
const ROWS = `select ${LEDGER_RECORD_SELECT} from ledger_events e where e.org_id = ? and e.sequence > ? order by e.sequence limit ${BATCH}`;

/**
 * Recomputes an org's chain from its first event: sequences must run 1, 2, 3, …, each
 * prevHash must be the previous event's hash, each hash must match every stored column
 * (by the event's hash version, which never goes back), and the chain must end exactly at
 * the org's head — and, given a checkpoint, hold its hash at its sequence. An edited row
 * fails its hash, a deleted one leaves a gap, a swapped or inserted one breaks a link,
 * deleted newest events fall short of the head, each named at the exact row. One
 * read-only snapshot, so appends running meanwhile do not look like tampering.
 */
export function verifyLedger(em: EntityManager, orgId: string, checkpoint: ChainAnchor | null = null): Promise<LedgerVerification> {
  return em.transactional((tx) => walk(tx, orgId, checkpoint), { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true });
}

async function walk(em: EntityManager, orgId: string, checkpoint: ChainAnchor | null): Promise<LedgerVerification> {
  const [head = null] = await em.execute<ChainAnchor[]>('select sequence::text as sequence, hash from ledger_heads where org_id = ?', [orgId]);
  const headSequence = BigInt(head?.sequence ?? 0);
  const checkpointSequence = checkpoint ? BigInt(checkpoint.sequence) : null;
  const broken = (sequence: bigint, eventId: string | null, problem: LedgerProblem, checked: number): LedgerVerification => ({
    orgId,
    ok: false,
    eventsChecked: checked,
    firstBadSequence: String(sequence),
    firstBadEventId: eventId,
    problem,
  });
  let expected = 1n;
  let prevHash: string | null = null;
  let version = 0;
  for (;;) {
    const batch = await em.execute<(LedgerRecord & { hash: string })[]>(ROWS, [orgId, String(expected - 1n)]);
    for (const event of batch) {
      const sequence = BigInt(event.sequence);
      const problem: LedgerProblem | null =
        sequence !== expected
          ? 'sequence_gap'
          : event.prevHash !== prevHash
            ? 'broken_link'
            : event.hashVersion < version || ledgerHash(event) !== event.hash
              ? 'hash_mismatch'
              : sequence === checkpointSequence && event.hash !== checkpoint?.hash
                ? 'checkpoint_mismatch'
                : sequence > headSequence || (sequence === headSequence && event.hash !== head?.hash)
                  ? 'head_mismatch'
                  : null;
      if (problem) return broken(sequence, event.id, problem, Number(expected - 1n));
      expected += 1n;
      prevHash = event.hash;
      version = event.hashVersion;
    }
    if (batch.length < BATCH) break;
  }
  const end = expected - 1n;
  // The chain stops before its head, or before a checkpoint's sequence: its newest events are gone.
  if (end < headSequence || (checkpointSequence !== null && end < checkpointSequence)) return broken(expected, null, 'truncated', Number(end));
  return { orgId, ok: true, eventsChecked: Number(end), firstBadSequence: null, firstBadEventId: null, problem: null };
}
