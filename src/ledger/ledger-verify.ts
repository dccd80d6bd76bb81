import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors/app-error';
import { LEDGER_RECORD_SELECT, ledgerHash, type LedgerRecord } from './ledger-hash';

/**
 * verifyLedger's cost for the operation limits and the rate limiter (src/api/limits.ts
 * reads it from the field's `@Extensions({ cost })`): it reads and re-hashes every event of
 * the org (about 1 ms per thousand). A fixed cost, since the count is not known before it
 * runs: at the default budget a key verifies 60 times a minute, and one operation holds at
 * most 5 (GRAPHQL_MAX_COST).
 */
export const VERIFY_LEDGER_COST = 1000;

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

/** Events per keyset page of the walk: memory holds one page, however long the chain. */
export const VERIFY_PAGE = 1000;
const ROWS = `select ${LEDGER_RECORD_SELECT} from ledger_events e where e.org_id = ? and e.sequence > ? order by e.sequence limit ${VERIFY_PAGE}`;

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

/** The advisory lock (hashtext of this text) one API verification of an org holds. */
export const verifyLockName = (orgId: string) => `ledger-verify:${orgId}`;

/**
 * The API's verification: as `verifyLedger`, one at a time per org. Each re-hashes the
 * whole chain, so a second one of the same org while one runs (on any node, or an alias in
 * the same operation) is refused LEDGER_VERIFY_BUSY at once instead of doubling the work.
 * The transaction-scoped try-lock is let go when the walk's transaction ends.
 */
export function verifyLedgerExclusive(em: EntityManager, orgId: string): Promise<LedgerVerification> {
  return em.transactional(
    async (tx) => {
      const [{ locked }] = await tx.execute<{ locked: boolean }[]>('select pg_try_advisory_xact_lock(hashtext(?)) as locked', [
        verifyLockName(orgId),
      ]);
      if (!locked) throw new AppError('LEDGER_VERIFY_BUSY', "A verification of this organization's ledger is already running; retry when it ended");
      return walk(tx, orgId, null);
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
}

async function walk(em: EntityManager, orgId: string, checkpoint: ChainAnchor | null): Promise<LedgerVerification> {
  const [head = null] = await em.execute<ChainAnchor[]>('select sequence::text as sequence, hash from ledger_heads where org_id = ?', [orgId]);
  const headSequence = BigInt(head?.sequence ?? 0);
  const chain = new ChainCheck({ sequence: 1n, prevHash: null }, { checkpoint, head: head ?? { sequence: '0', hash: '' } });
  for (;;) {
    const batch = await em.execute<ChainEvent[]>(ROWS, [orgId, String(chain.expected - 1n)]);
    for (const event of batch) {
      const problem = chain.next(event);
      if (problem) return brokenAt(orgId, BigInt(event.sequence), event.id, problem, chain.checked);
    }
    if (batch.length < VERIFY_PAGE) break;
  }
  const end = chain.expected - 1n;
  // The chain stops before its head, or before a checkpoint's sequence: its newest events are gone.
  if (end < headSequence || chain.shortOfCheckpoint()) return brokenAt(orgId, chain.expected, null, 'truncated', chain.checked);
  return { orgId, ok: true, eventsChecked: chain.checked, firstBadSequence: null, firstBadEventId: null, problem: null };
}

export function brokenAt(orgId: string, sequence: bigint, eventId: string | null, problem: LedgerProblem, checked: number): LedgerVerification {
  return { orgId, ok: false, eventsChecked: checked, firstBadSequence: String(sequence), firstBadEventId: eventId, problem };
}

/** An event as stored (or exported): its hashed columns and its hash. */
export type ChainEvent = LedgerRecord & { hash: string };

/**
 * Walks one chain event by event, in the order of the checks above: the database's
 * verification from sequence 1, and an export's (src/ledger/ledger-export-verify.ts) from
 * its first event, whose previous hash is taken as given. Without a head (an export), no
 * head check.
 */
export class ChainCheck {
  /** The sequence the next event must have. */
  expected: bigint;
  /** Events that held so far. */
  checked = 0;
  private prevHash: string | null;
  private version = 0;
  private readonly checkpointSequence: bigint | null;
  private readonly headSequence: bigint | null;

  constructor(
    start: { sequence: bigint; prevHash: string | null },
    private readonly anchors: { checkpoint: ChainAnchor | null; head: ChainAnchor | null },
  ) {
    this.expected = start.sequence;
    this.prevHash = start.prevHash;
    this.checkpointSequence = anchors.checkpoint ? BigInt(anchors.checkpoint.sequence) : null;
    this.headSequence = anchors.head ? BigInt(anchors.head.sequence) : null;
  }

  /** The problem with the next event, or null: then the chain moves on past it. */
  next(event: ChainEvent): LedgerProblem | null {
    const sequence = BigInt(event.sequence);
    const { checkpoint, head } = this.anchors;
    const problem: LedgerProblem | null =
      sequence !== this.expected
        ? 'sequence_gap'
        : event.prevHash !== this.prevHash
          ? 'broken_link'
          : event.hashVersion < this.version || ledgerHash(event) !== event.hash
            ? 'hash_mismatch'
            : sequence === this.checkpointSequence && event.hash !== checkpoint?.hash
              ? 'checkpoint_mismatch'
              : this.headSequence !== null && (sequence > this.headSequence || (sequence === this.headSequence && event.hash !== head?.hash))
                ? 'head_mismatch'
                : null;
    if (problem) return problem;
    this.expected += 1n;
    this.checked += 1;
    this.prevHash = event.hash;
    this.version = event.hashVersion;
    return null;
  }

  /** The chain walked so far ends before the checkpoint's sequence. */
  shortOfCheckpoint(): boolean {
    return this.checkpointSequence !== null && this.expected - 1n < this.checkpointSequence;
  }
}
