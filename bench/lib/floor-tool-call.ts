import { callFingerprint } from '../../src/gateway/call-fingerprint';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { canonicalJson } from '../../src/ledger/canonical-json';
import type { RawCall } from './raw-tool-call';
import { OUTPUT_JSON, SEALED_INPUT_JSON, requestedMetadata } from './raw-tool-call';

/**
 * The minimal floor: the rows of one allowed call that succeeds — decision, call, two
 * ledger events chained with the real hash (version 2) — written with ONE round trip per transaction
 * (a multi-statement simple query: BEGIN; run read; lock; inserts; COMMIT). The chain link
 * is computed by PostgreSQL from the org's head it reads after the lock (sha256 over the
 * same canonical JSON as ledgerHash), so the floor needs nothing back between statements.
 * No Node-side decision, no parameters: what is left is the SQL that must reach the server.
 */
const NODE_ID = randomUUID();

export async function floorToolCall(pool: pg.Pool, call: RawCall): Promise<void> {
  const started = performance.now();
  const callId = randomUUID();
  const decisionId = randomUUID();
  const tool = `${call.toolName}.${call.action}`;
  const client = await pool.connect();
  try {
    const q = (value: unknown) => (value === null ? 'null' : client.escapeLiteral(String(value)));
    const now = new Date().toISOString();
    const first = await client.query(
      `begin;
       select r.status from agent_runs r join orgs o on o.id = r.org_id where r.id = ${q(call.runId)} and r.org_id = ${q(call.orgId)};
       ${lock(q, call.orgId)};
       with w0 as (insert into policy_decisions (id, org_id, run_id, tool_name, action, outcome, shadow_outcome, risk, matched_rule_id,
                     policy_version, caller_role, caller_key_id, reason, created_at)
                   values (${q(decisionId)}, ${q(call.orgId)}, ${q(call.runId)}, ${q(call.toolName)}, ${q(call.action)}, 'allow', null, 'low', null,
                     ${call.policyVersion}, ${q(call.caller.role)}, ${q(call.caller.keyId)}, 'no rule matched; catalog default risk low', ${q(now)})),
            w1 as (insert into tool_calls (id, org_id, run_id, tool_name, action, correlation_id, tool_use_id, fingerprint, status, input_redacted,
                     policy_decision_id, risk_level, review_required, node_id, sealed_input, retry_count, cost_cents, created_at, updated_at)
                   values (${q(callId)}, ${q(call.orgId)}, ${q(call.runId)}, ${q(call.toolName)}, ${q(call.action)}, ${q(call.correlationId)},
                     ${q(call.toolUseId)}, ${q(callFingerprint(call))}, 'running', ${q(JSON.stringify(call.params))}, ${q(decisionId)}, 'low', false, ${q(NODE_ID)},
                     ${q(SEALED_INPUT_JSON)}, 0, 0, ${q(now)}, ${q(now)}))
       ${insertEvent(q, call, callId, 'tool_call.requested', call.caller, requestedMetadata(call))};
       commit;`,
    );
    const [, run] = first as unknown as pg.QueryResult<{ status: string }>[];
    if (run.rows[0]?.status !== 'running') throw new Error(`run ${call.runId} is not running`);
    // (the instant vendor answers here)
    const durationMs = Math.round(performance.now() - started);
    const later = new Date().toISOString();
    await client.query(
      `begin;
       update tool_calls set status = 'succeeded', output_redacted = ${q(OUTPUT_JSON)}, duration_ms = ${durationMs}, vendor_status_code = 200,
              sealed_input = null, updated_at = ${q(later)}
        where id = ${q(callId)} and status = 'running' and node_id = ${q(NODE_ID)};
       ${lock(q, call.orgId)};
       ${insertEvent(q, call, callId, 'tool_call.succeeded', null, { tool, durationMs, retryCount: 0, costCents: 0 })};
       commit;`,
    );
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

type Quote = (value: unknown) => string;

const lock = (q: Quote, orgId: string) => `select pg_advisory_xact_lock(hashtextextended(${q(orgId)}, 7))`;

/**
 * One ledger event after the org's head, hashed in SQL exactly as ledgerHash (version 2)
 * does: the canonical JSON of every column, keys sorted; the id, sequence, link and time
 * come from PostgreSQL, the rest is known here. The head trigger moves the head.
 */
function insertEvent(
  q: Quote,
  call: RawCall,
  callId: string,
  type: string,
  actor: { role: string; keyId: string | null } | null,
  metadata: Record<string, unknown>,
): string {
  const json = (value: unknown) => q(canonicalJson(value));
  const canonical = [
    `'{"actor_key_id":' || ${json(actor?.keyId ?? null)} || ',"actor_role":' || ${json(actor?.role ?? null)}`,
    `',"created_at":' || to_json(p.at)::text || ',"hash_version":2,"id":' || to_json(p.id::text)::text`,
    `',"metadata":' || ${json(metadata)} || ',"org_id":' || ${json(call.orgId)} || ',"prev_hash":' || coalesce(to_json(p.prev)::text, 'null')`,
    `',"resource_id":' || ${json(callId)} || ',"run_id":' || ${json(call.runId)} || ',"sequence":' || to_json(p.sequence::text)::text`,
    `',"type":' || ${json(type)} || '}'`,
  ].join(' || ');
  return `insert into ledger_events (id, org_id, sequence, hash_version, type, run_id, resource_id, actor_role, actor_key_id, metadata, created_at, prev_hash, hash)
    select p.id, ${q(call.orgId)}, p.sequence, 2, ${q(type)}, ${q(call.runId)}, ${q(callId)}, ${q(actor?.role ?? null)}, ${q(actor?.keyId ?? null)},
           ${q(JSON.stringify(metadata))}, p.at::timestamptz, p.prev, encode(sha256(convert_to(${canonical}, 'UTF8')), 'hex')
      from (select nextval('ledger_events_id_seq') as id, coalesce(h.sequence, 0) + 1 as sequence, h.hash as prev,
                   to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at
              from (select 1) one left join ledger_heads h on h.org_id = ${q(call.orgId)}) p`;
}
