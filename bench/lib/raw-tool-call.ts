import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { ledgerHash } from '../../src/ledger/ledger.service';
import { redactOutput } from '../../src/redaction/redact';
import { sealJson } from '../../src/credentials/sealed-json';
import type { Caller } from '../../src/auth/caller';
import { VENDOR_RESULT } from './app';

/**
 * The baseline: the statements the gateway sends for one allowed call that succeeds,
 * written by hand with raw `pg`, in the same two transactions and on a pool of the same
 * size. Transaction 1: load run + org version, the toolUseId check, INSERT policy_decisions,
 * INSERT tool_calls (with its owner node and sealed input), ledger append (advisory lock,
 * last hash, INSERT). Transaction 2: UPDATE tool_calls while this node owns it, ledger append. The connection goes back to the pool in between, as
 * it does while the gateway awaits the executor. Hashes are chained with the code's own
 * ledgerHash, so the chain stays valid whoever wrote an event.
 *
 * After each commit the ledger notice goes out as the realtime bus sends it in production
 * (`select pg_notify('toolgate_ledger', '<org>:<sequence>')` on a separate pool of 2,
 * not awaited by the call).
 *
 * `reads: false` leaves out the two SELECTs of the gateway's decision (the ORM scenario:
 * persisting a call, nothing else).
 */
export interface RawCall {
  orgId: string;
  runId: string;
  caller: Caller;
  toolName: string;
  action: string;
  params: Record<string, unknown>;
  correlationId: string;
  toolUseId: string;
  policyVersion: number;
}

const LOAD_RUN = `select r.id, r.org_id, r.specialist_id, r.status, r.metadata, r.driver, o.config_version, o.policy_version, o.policy_shadow_mode
         from agent_runs r join orgs o on o.id = r.org_id
        where r.id = $1 and r.org_id = $2`;
const FIND_BY_TOOL_USE = 'select id from tool_calls where run_id = $1 and org_id = $2 and tool_use_id = $3';
const INSERT_DECISION = `insert into "policy_decisions" ("id", "org_id", "run_id", "tool_name", "action", "outcome", "shadow_outcome", "risk",
  "matched_rule_id", "policy_version", "caller_role", "caller_key_id", "reason", "created_at")
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`;
const INSERT_CALL = `insert into "tool_calls" ("id", "org_id", "run_id", "tool_name", "action", "correlation_id", "tool_use_id", "status",
  "input_redacted", "output_redacted", "policy_decision_id", "risk_level", "review_required", "error_code", "error_text",
  "vendor_status_code", "node_id", "sealed_input", "retry_count", "duration_ms", "cost_cents", "created_at", "updated_at")
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)`;
/** The outcome, only while this node still owns the running call (reconciliation may have taken it). */
const UPDATE_CALL =
  'update "tool_calls" set "status" = $1, "output_redacted" = $2, "duration_ms" = $3, "retry_count" = $4, "vendor_status_code" = $5, "cost_cents" = $6, "error_code" = $7, "error_text" = $8, "sealed_input" = $9, "updated_at" = $10 where "id" = $11 and "status" = $12 and "node_id" = $13';
const LOCK = 'select pg_advisory_xact_lock(hashtextextended($1, 7))';
const LAST = 'select hash, sequence from ledger_events where org_id = $1 order by sequence desc limit 1';
const REASON = 'no rule matched; catalog default risk low';

/** The stored (redacted) output, computed once: the baseline does SQL, not redaction. */
const OUTPUT_JSON = JSON.stringify(redactOutput(VENDOR_RESULT));
/** A sealed input of the gateway's shape (AES-256-GCM, same size), made once: SQL, not crypto. */
const SEALED_INPUT_JSON = JSON.stringify(sealJson(Buffer.alloc(32, 7), 1, 'bench', { orderId: '12345' }));
/** The node that runs the baseline's calls. */
const NODE_ID = randomUUID();

interface RawEvent {
  type: string;
  runId: string;
  resourceId: string;
  actor: Caller | null;
  metadata: Record<string, unknown>;
}

/** The bus's publishing pool: `select pg_notify(...)`, outside any transaction. */
export interface Notifier {
  pool: pg.Pool;
}

function notify(notifier: Notifier | null, orgId: string, sequence: bigint): void {
  if (!notifier) return;
  notifier.pool.query('select pg_notify($1, $2)', ['toolgate_ledger', `${orgId}:${sequence}`]).catch(() => undefined);
}

export async function rawToolCall(pool: pg.Pool, call: RawCall, options: { reads: boolean; notifier: Notifier | null }): Promise<void> {
  const started = performance.now();
  const callId = randomUUID();
  const tool = `${call.toolName}.${call.action}`;
  const first = await transaction(pool, async (client) => {
    if (options.reads) {
      const run = await client.query<{ status: string }>(LOAD_RUN, [call.runId, call.orgId]);
      if (run.rows[0]?.status !== 'running') throw new Error(`run ${call.runId} is not running`);
      const existing = await client.query(FIND_BY_TOOL_USE, [call.runId, call.orgId, call.toolUseId]);
      if (existing.rowCount) throw new Error('toolUseId repeated');
    }
    const decisionId = randomUUID();
    const now = new Date();
    await client.query(INSERT_DECISION, [
      decisionId,
      call.orgId,
      call.runId,
      call.toolName,
      call.action,
      'allow',
      null,
      'low',
      null,
      call.policyVersion,
      call.caller.role,
      call.caller.keyId,
      REASON,
      now,
    ]);
    await client.query(INSERT_CALL, [
      callId,
      call.orgId,
      call.runId,
      call.toolName,
      call.action,
      call.correlationId,
      call.toolUseId,
      'running',
      JSON.stringify(call.params),
      null,
      decisionId,
      'low',
      false,
      null,
      null,
      null,
      NODE_ID,
      SEALED_INPUT_JSON,
      0,
      null,
      0,
      now,
      now,
    ]);
    return appendEvents(client, call.orgId, [
      {
        type: 'tool_call.requested',
        runId: call.runId,
        resourceId: callId,
        actor: call.caller,
        metadata: {
          tool,
          correlationId: call.correlationId,
          decision: 'allow',
          shadowDecision: null,
          risk: 'low',
          matchedRuleId: null,
          policyVersion: call.policyVersion,
        },
      },
    ]);
  });
  notify(options.notifier, call.orgId, first);
  // (the instant vendor answers here)
  const durationMs = Math.round(performance.now() - started);
  const second = await transaction(pool, async (client) => {
    await client.query(UPDATE_CALL, ['succeeded', OUTPUT_JSON, durationMs, 0, 200, 0, null, null, null, new Date(), callId, 'running', NODE_ID]);
    return appendEvents(client, call.orgId, [
      {
        type: 'tool_call.succeeded',
        runId: call.runId,
        resourceId: callId,
        actor: null,
        metadata: { tool, durationMs, retryCount: 0, costCents: 0 },
      },
    ]);
  });
  notify(options.notifier, call.orgId, second);
}

async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The ledger append of ledger.service: per-org advisory lock, last hash, one INSERT; the new last sequence. */
async function appendEvents(client: pg.PoolClient, orgId: string, entries: RawEvent[]): Promise<bigint> {
  await client.query(LOCK, [orgId]);
  const last = await client.query<{ hash: string; sequence: string }>(LAST, [orgId]);
  let prevHash: string | null = last.rows[0]?.hash ?? null;
  let sequence = BigInt(last.rows[0]?.sequence ?? 0);
  const createdAt = new Date();
  const values: unknown[] = [];
  const tuples: string[] = [];
  for (const entry of entries) {
    const event = {
      orgId,
      sequence: String(++sequence),
      type: entry.type,
      runId: entry.runId,
      resourceId: entry.resourceId,
      actorRole: entry.actor?.role ?? null,
      actorKeyId: entry.actor?.keyId ?? null,
      metadata: entry.metadata,
      createdAt,
      prevHash,
    };
    const hash = ledgerHash(event);
    prevHash = hash;
    const at = values.length;
    tuples.push(`(${Array.from({ length: 11 }, (_, i) => `$${at + i + 1}`).join(', ')})`);
    values.push(
      event.sequence,
      orgId,
      event.runId,
      event.resourceId,
      event.type,
      event.actorRole,
      event.actorKeyId,
      JSON.stringify(event.metadata),
      event.prevHash,
      hash,
      createdAt,
    );
  }
  await client.query(
    `insert into "ledger_events" ("sequence", "org_id", "run_id", "resource_id", "type", "actor_role", "actor_key_id", "metadata", "prev_hash", "hash", "created_at") values ${tuples.join(', ')} returning "id"`,
    values,
  );
  return sequence;
}
