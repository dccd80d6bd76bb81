import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerEvent } from './ledger-event.entity';
import { ledgerHash } from './ledger.service';

export interface LedgerVerification {
  orgId: string;
  ok: boolean;
  eventsChecked: number;
  /** The first event whose sequence, link or hash is wrong; null when the chain holds. */
  firstBadSequence: string | null;
  firstBadEventId: string | null;
  problem: 'sequence_gap' | 'broken_link' | 'hash_mismatch' | null;
}

const BATCH = 1000;

/**
 * Recomputes an org's chain from its first event: sequences must run 1, 2, 3, … , each
 * prevHash must be the previous event's hash, and each hash must match the content. An
 * edited row fails its hash, a deleted one leaves a gap, a swapped or inserted one breaks
 * a link — each detected at the exact row.
 */
export async function verifyLedger(em: EntityManager, orgId: string): Promise<LedgerVerification> {
  let expectedSequence = 1n;
  let prevHash: string | null = null;
  let checked = 0;
  let after = 0n;
  for (;;) {
    const batch: LedgerEvent[] = await em.find(
      LedgerEvent,
      { orgId, sequence: { $gt: String(after) } },
      { orderBy: { sequence: 'asc' }, limit: BATCH },
    );
    for (const event of batch) {
      const problem =
        BigInt(event.sequence) !== expectedSequence
          ? 'sequence_gap'
          : event.prevHash !== prevHash
            ? 'broken_link'
            : ledgerHash(event) !== event.hash
              ? 'hash_mismatch'
              : null;
      if (problem) {
        return { orgId, ok: false, eventsChecked: checked, firstBadSequence: String(event.sequence), firstBadEventId: String(event.id), problem };
      }
      checked += 1;
      expectedSequence += 1n;
      prevHash = event.hash;
      after = BigInt(event.sequence);
    }
    em.clear();
    if (batch.length < BATCH) break;
  }
  return { orgId, ok: true, eventsChecked: checked, firstBadSequence: null, firstBadEventId: null, problem: null };
}
