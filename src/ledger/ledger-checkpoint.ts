import { sign, verify, type KeyObject } from 'node:crypto';
import type { SqlRunner } from '../db/raw-transaction';
import { AppError } from '../errors/app-error';
import { canonicalJson } from './canonical-json';
import { CANONICAL_TIMESTAMP } from './ledger-hash';
import { keyIdOf } from './signing-key';

/**
 * Signed checkpoints (docs/ledger.md): every org's head at one moment, signed with the
 * Ed25519 key of the configuration and kept outside the database. A chain rewritten
 * consistently — tail re-hashed and head moved with it, or cut back together with its
 * head — verifies against itself, but no longer holds the checkpoint's hash at its sequence.
 */
export const CHECKPOINT_FORMAT = 'toolgate-ledger-checkpoint/1';

export interface CheckpointHead {
  orgId: string;
  sequence: string;
  hash: string;
}

/** What is signed: the canonical JSON (RFC 8785) of this object, as UTF-8. */
export interface CheckpointStatement {
  format: typeof CHECKPOINT_FORMAT;
  /** The database's clock when the heads were read, canonical UTC to the microsecond. */
  createdAt: string;
  keyId: string;
  /** By orgId. */
  heads: CheckpointHead[];
}

export interface SignedCheckpoint {
  statement: CheckpointStatement;
  /** Base64 of the Ed25519 signature. */
  signature: string;
}

// Every head in one statement: one snapshot.
const HEADS = `select to_char(statement_timestamp() at time zone 'UTC', ${CANONICAL_TIMESTAMP}) as "createdAt",
  coalesce(json_agg(json_build_object('orgId', org_id, 'sequence', sequence::text, 'hash', hash) order by org_id), '[]'::json) as heads
  from ledger_heads`;

export async function takeCheckpoint(db: SqlRunner, key: KeyObject): Promise<SignedCheckpoint> {
  const [read] = await db.execute<{ createdAt: string; heads: CheckpointHead[] }[]>(HEADS);
  const statement: CheckpointStatement = { format: CHECKPOINT_FORMAT, createdAt: read.createdAt, keyId: keyIdOf(key), heads: read.heads };
  return { statement, signature: sign(null, Buffer.from(canonicalJson(statement)), key).toString('base64') };
}

/** The statement of a checkpoint file, once its signature holds for `publicKey`. */
export function openCheckpoint(text: string, publicKey: KeyObject): CheckpointStatement {
  let parsed: Partial<SignedCheckpoint>;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('it is not JSON');
  }
  const { statement, signature } = parsed ?? {};
  if (!statement || typeof statement !== 'object' || typeof signature !== 'string') throw invalid('it has no statement and signature');
  const keyId = keyIdOf(publicKey);
  if (statement.keyId !== keyId) {
    throw new AppError('CHECKPOINT_SIGNATURE_INVALID', `the checkpoint names key ${String(statement.keyId)}, the public key given is ${keyId}`);
  }
  if (!verify(null, Buffer.from(canonicalJson(statement)), publicKey, Buffer.from(signature, 'base64'))) {
    throw new AppError(
      'CHECKPOINT_SIGNATURE_INVALID',
      `the checkpoint's signature does not verify with key ${keyId}: it was altered or not signed by it`,
    );
  }
  return checkShape(statement);
}

/** A correctly signed statement of another shape (a future format) is refused, not misread. */
function checkShape(statement: CheckpointStatement): CheckpointStatement {
  if (statement.format !== CHECKPOINT_FORMAT) throw invalid(`its format is not ${CHECKPOINT_FORMAT}`);
  const heads = Array.isArray(statement.heads) ? statement.heads : null;
  const wellFormed = (h: CheckpointHead) =>
    typeof h?.orgId === 'string' && typeof h.sequence === 'string' && /^[1-9]\d{0,18}$/.test(h.sequence) && /^[0-9a-f]{64}$/.test(String(h.hash));
  if (!heads?.every(wellFormed) || new Set(heads.map((h) => h.orgId)).size !== heads.length) throw invalid('its heads are malformed');
  return statement;
}

const invalid = (why: string) => new AppError('CHECKPOINT_INVALID', `not a Toolgate ledger checkpoint: ${why}`);
