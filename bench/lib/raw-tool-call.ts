import { callFingerprint } from '../../src/gateway/call-fingerprint';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { LEDGER_APPEND, LEDGER_APPEND_FROM_ROW, ledgerAppendParams } from '../../src/ledger/ledger.service';
import { redactOutput } from '../../src/redaction/redact';
import { sealJson } from '../../src/credentials/sealed-json';
import type { Caller } from '../../src/auth/caller';
import type { LedgerEventType } from '../../src/ledger/ledger-event-types';
import { VENDOR_RESULT } from './app';

/**
 * The baseline: the statements the gateway sends for one allowed call that succeeds,
 * written by hand with raw `pg`, in the same two transactions and on a pool of the same
 * size. Transaction 1: one statement inserting the policy decision and the call (with its
 * owner node and sealed input) with the run's check (`toolgate_call_run_check`, after the
 * run and org were read once, by the run's first call, as the gateway's run cache does) and
 * the ledger's append (`toolgate_ledger_append`: advisory lock, head, the event hashed and
 * chained by PostgreSQL from the canonical pieces of ledgerAppendParams). Transaction 2:
 * UPDATE tool_calls while this node owns it, then the append. The connection goes back to
 * the pool in between, as it does while the gateway awaits the executor.
 *
 * After each commit the ledger notice goes out as the realtime bus sends it in production
 * (`select pg_notify('toolgate_ledger', '<org>:<sequence>')` on a separate pool of 2,
 * not awaited by the call).
 *
 * `reads: false` leaves out the run's read and check (the ORM scenario: persisting a call,
 * nothing else).
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

const LOAD_RUN = `select r.id, r.org_id, r.specialist_id, r.status, r.metadata, r.driver, r.owner_key_id, o.config_version, o.policy_version, o.policy_shadow_mode,
            o.suspended_at is not null as org_suspended, c.id as tool_use_call_id, c.fingerprint as tool_use_fingerprint
       from agent_runs r join orgs o on o.id = r.org_id
       left join tool_calls c on c.run_id = r.id and c.org_id = r.org_id and c.tool_use_id = $1
      where r.id = $2 and r.org_id = $3`;
const INSERT_DECISION = `insert into "policy_decisions" ("id", "org_id", "run_id", "tool_name", "action", "outcome", "shadow_outcome", "risk",
  "matched_rule_id", "policy_version", "caller_role", "caller_key_id", "reason", "created_at")
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`;
const INSERT_CALL = `insert into "tool_calls" ("id", "org_id", "run_id", "tool_name", "action", "correlation_id", "tool_use_id", "fingerprint", "status",
  "input_redacted", "edited_input_redacted", "output_redacted", "policy_decision_id", "risk_level", "review_required", "review_acknowledged_at",
  "review_acknowledged_by", "review_note", "error_code", "error_text", "vendor_status_code", "node_id", "sealed_input", "retry_count", "duration_ms",
  "cost_cents", "created_at", "updated_at")
  values ($15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38, $39, $40, $41, $42)`;
/** The outcome, only while this node still owns the running call (reconciliation may have taken it). */
const UPDATE_CALL = `update tool_calls set status = $1, output_redacted = $2::jsonb, duration_ms = $3, retry_count = $4, vendor_status_code = $5,
       cost_cents = $6, error_code = $7, error_text = $8, sealed_input = null, updated_at = $9
     where id = $10 and status = 'running' and node_id = $11 returning org_id`;
const REASON = 'no rule matched; catalog default risk low';

/** The stored (redacted) output, computed once: the baseline does SQL, not redaction. */
export const OUTPUT_JSON = JSON.stringify(redactOutput(VENDOR_RESULT));
/** A sealed input of the gateway's shape (AES-256-GCM, same size), made once: SQL, not crypto. */
export const SEALED_INPUT_JSON = JSON.stringify(sealJson(Buffer.alloc(32, 7), 1, 'bench', { orderId: '12345' }));
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

/** The tool_call.requested metadata of an allowed call, as the gateway records it. */
export function requestedMetadata(call: RawCall): Record<string, unknown> {
  return {
    tool: `${call.toolName}.${call.action}`,
    correlationId: call.correlationId,
    decision: 'allow',
    shadowDecision: null,
    risk: 'low',
    matchedRuleId: null,
    policyVersion: call.policyVersion,
  };
}

export async function rawToolCall(pool: pg.Pool, call: RawCall, options: { reads: boolean; notifier: Notifier | null }): Promise<void> {
  const started = performance.now();
  const callId = randomUUID();
  const tool = `${call.toolName}.${call.action}`;
  // The gateway sends its statements alone (no BEGIN/COMMIT: RawTransaction's read and
  // executeLast); the ORM scenario's recorder runs inside em.transactional.
  const wrap = options.reads ? alone : transaction;
  const first = await wrap(pool, async (client) => {
    // The gateway reads a run for its first call and checks it in the decision's statement after (run-cache.ts).
    const check = options.reads ? await runCheckParams(client, call) : null;
    const decisionId = randomUUID();
    const now = new Date();
    const rows = [
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

      callId,
      call.orgId,
      call.runId,
      call.toolName,
      call.action,
      call.correlationId,
      call.toolUseId,
      callFingerprint(call),
      'running',
      JSON.stringify(call.params),
      null,
      null,
      decisionId,
      'low',
      false,
      null,
      null,
      null,
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
    ];
    return appendEvents(
      client,
      call.orgId,
      { sql: `w0 as (${INSERT_DECISION}), w1 as (${INSERT_CALL})`, params: rows },
      { runId: call.runId, toolUseId: call.toolUseId },
      check,
      [
        {
          type: 'tool_call.requested',
          runId: call.runId,
          resourceId: callId,
          actor: call.caller,
          metadata: requestedMetadata(call),
        },
      ],
    );
  });
  notify(options.notifier, call.orgId, first);
  // (the instant vendor answers here)
  const durationMs = Math.round(performance.now() - started);
  // Transaction 2: the UPDATE and the append after it, one statement.
  const second = await wrap(pool, (client) =>
    appendAfterUpdate(client, ['succeeded', OUTPUT_JSON, durationMs, 0, 200, 0, null, null, new Date(), callId, NODE_ID], call.orgId, [
      {
        type: 'tool_call.succeeded',
        runId: call.runId,
        resourceId: callId,
        actor: null,
        metadata: { tool, durationMs, retryCount: 0, costCents: 0 },
      },
    ]),
  );
  notify(options.notifier, call.orgId, second);
}

/** `$n` placeholders for `sql`'s `?`s, numbered after `before` parameters. */
const numbered = (sql: string, before: number) => {
  let n = before;
  return sql.replace(/\?/g, () => `$${++n}`);
};
/** The ledger append after `before` joined parameters, made once per shape (the baseline sends SQL, it does not build it). */
const appendTexts = new Map<number, string>();
const appendAfter = (before: number) => appendTexts.get(before) ?? appendTexts.set(before, numbered(LEDGER_APPEND, before)).get(before)!;
/** The outcome as one statement: UPDATE_CALL ($1…$11) as the guard, the append on its row. */
const SETTLE = `with guard as (${UPDATE_CALL}) ${numbered(LEDGER_APPEND_FROM_ROW, 11)}`;

/** ledger.service's appendAfterUpdate: the call's UPDATE as the guard, the append on its row. */
async function appendAfterUpdate(client: pg.PoolClient, updateParams: unknown[], orgId: string, entries: RawEvent[]): Promise<bigint> {
  const { params } = ledgerAppendParams(
    orgId,
    entries.map((entry) => ({ ...entry, type: entry.type as LedgerEventType })),
  );
  const { rows } = await client.query<{ sequence: string }>(SETTLE, [...updateParams, ...params.slice(1)]);
  if (rows.length === 0) throw new Error(`call ${entries[0].resourceId} was not running on this node`);
  return BigInt(rows[rows.length - 1].sequence);
}

/** Statements each alone (a transaction of its own), on one pooled connection. */
async function alone<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await work(client);
  } finally {
    client.release();
  }
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

/** A statement's CTEs (`w0 as (…), …`) joined to the ledger INSERT, with their parameters ($1…). */
interface Joined {
  sql: string;
  params: unknown[];
}

/**
 * The ledger append of ledger.service: one statement (`toolgate_ledger_append`: the lock,
 * the head, each event hashed and chained by the database) carrying the joined writes;
 * the new last sequence.
 */
async function appendEvents(
  client: pg.PoolClient,
  orgId: string,
  joined: Joined | null,
  toolUse: { runId: string; toolUseId: string } | null,
  check: unknown[] | null,
  entries: RawEvent[],
): Promise<bigint> {
  const { params } = ledgerAppendParams(
    orgId,
    entries.map((entry) => ({ ...entry, type: entry.type as LedgerEventType })),
    toolUse ?? undefined,
  );
  const before = joined?.params.length ?? 0;
  const values: unknown[] = check ? [...(joined?.params ?? []), ...check, ...params.slice(1)] : [...(joined?.params ?? []), ...params];
  const { rows } = await client.query<{ sequence: string }>(
    check ? checkedAppend(joined, before) : `${joined ? `with ${joined.sql} ` : ''}${appendAfter(before)}`,
    values,
  );
  return BigInt(rows[rows.length - 1].sequence);
}

/** The runs this baseline read once, as the gateway's run cache keeps them. */
const runsRead = new Map<string, unknown[]>();

/** toolgate_call_run_check's parameters for the call's run: read by its first call, like the gateway. */
async function runCheckParams(client: pg.PoolClient, call: RawCall): Promise<unknown[]> {
  const known = runsRead.get(call.runId);
  if (known) return known;
  const { rows } = await client.query<{
    status: string;
    owner_key_id: string | null;
    config_version: number;
    policy_version: number;
    policy_shadow_mode: boolean;
    tool_use_call_id: string | null;
  }>(LOAD_RUN, [call.toolUseId, call.runId, call.orgId]);
  const run = rows[0];
  if (run?.status !== 'running') throw new Error(`run ${call.runId} is not running`);
  if (run.tool_use_call_id) throw new Error('toolUseId repeated');
  const check = [call.runId, call.orgId, run.owner_key_id, run.config_version, run.policy_version, run.policy_shadow_mode];
  runsRead.set(call.runId, check);
  return check;
}

/** The decision's statement with the run's check ahead of the append (ledger.service's `precondition`), made once per shape. */
const checkedTexts = new Map<number, string>();
function checkedAppend(joined: Joined | null, before: number): string {
  let text = checkedTexts.get(before);
  if (text === undefined) {
    const check = `guard as (select toolgate_call_run_check(${numbered('?::uuid, ?::uuid, ?::uuid, ?::int, ?::int, ?::boolean', before)}) as org_id)`;
    text = `with ${joined ? `${joined.sql}, ` : ''}${check} ${numbered(LEDGER_APPEND_FROM_ROW, before + 6)}`;
    checkedTexts.set(before, text);
  }
  return text;
}
