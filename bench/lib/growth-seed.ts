import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { HASH_VERSION, ledgerHash, type LedgerRecord } from '../../src/ledger/ledger-hash';
import { TOOLS, type BenchOrg } from './app';
import { OUTPUT_JSON } from './raw-tool-call';

/**
 * A large history written straight in SQL, for the growth scenario: `runs` finished
 * external runs of an org, each with CALLS_PER_RUN allowed calls that succeeded (policy
 * decision, tool call) and its EVENTS_PER_RUN ledger events — run.created, run.started,
 * requested + succeeded per call, run.completed — as the product writes them.
 *
 * The chain is real: every event continues the org's head (read first) with the next
 * sequence and id, and its hash is the product's own ledgerHash (version 2) over exactly the
 * columns stored, so `toolgate ledger verify` checks it like any other chain. The ids are a
 * block reserved from ledger_events_id_seq; ledger_heads ends at the last seeded event (moved
 * by its trigger, or set after a load without triggers), so the gateway's next append
 * continues the seeded chain. Times lie in the past,
 * rising with the sequence, ending `endsBeforeMs` before now (so the runs the bench then
 * starts are the newest).
 *
 * Rows go in chunks of one statement each (runs, decisions, calls, events); while PostgreSQL
 * writes a chunk, Node builds and hashes the next. Only for a database of the bench's own,
 * before anything else writes to it (see seedHistory).
 */
export const CALLS_PER_RUN = 4;
export const EVENTS_PER_RUN = 3 + 2 * CALLS_PER_RUN;
const RUNS_PER_CHUNK = 2000;
/** Seconds between two seeded runs. */
const RUN_SPACING_S = 10;
const CALLS = [TOOLS[0], TOOLS[1], TOOLS[0], TOOLS[1]].slice(0, CALLS_PER_RUN);

export interface SeedResult {
  orgId: string;
  runs: number;
  calls: number;
  events: number;
  ms: number;
}

interface Chunk {
  runs: { id: string[]; correlation: string[]; createdAt: string[]; completedAt: string[] };
  calls: {
    id: string[];
    runId: string[];
    decisionId: string[];
    tool: string[];
    action: string[];
    input: Record<string, unknown>[];
    correlation: string[];
    toolUse: string[];
    createdAt: string[];
    updatedAt: string[];
  };
  events: {
    id: string[];
    sequence: string[];
    type: string[];
    runId: string[];
    resourceId: string[];
    actorRole: (string | null)[];
    actorKeyId: (string | null)[];
    metadata: Record<string, unknown>[];
    createdAt: string[];
    prevHash: (string | null)[];
    hash: string[];
  };
}

/**
 * One chunk in one statement (one round trip, sent at once, so PostgreSQL writes it while
 * Node builds the next): the runs, the calls' decisions and rows, the events. Arrays travel
 * as array parameters, except the JSON columns: one JSON array each, element n for row n
 * (node-postgres escapes a text[] of JSON slowly).
 */
const INSERT_CHUNK = `with runs as (
    insert into agent_runs (id, org_id, specialist_id, status, metadata, driver, correlation_id, created_at, updated_at, completed_at)
    select r.id, $1, $2, 'completed', $3::jsonb, 'external', r.correlation, r.created_at, r.completed_at, r.completed_at
      from unnest($6::uuid[], $7::text[], $8::timestamptz[], $9::timestamptz[]) as r(id, correlation, created_at, completed_at)),
  calls as (
    select * from unnest($10::uuid[], $11::uuid[], $12::uuid[], $13::text[], $14::text[], $16::text[], $17::text[], $18::timestamptz[], $19::timestamptz[])
      with ordinality as c(id, run_id, decision_id, tool, action, correlation, tool_use, created_at, updated_at, n)),
  decisions as (
    insert into policy_decisions (id, org_id, run_id, tool_name, action, outcome, risk, policy_version, caller_role, caller_key_id, reason, created_at)
    select c.decision_id, $1, c.run_id, c.tool, c.action, 'allow', 'low', 1, 'agent', $4, 'no rule matched; catalog default risk low', c.created_at
      from calls c),
  call_rows as (
    insert into tool_calls (id, org_id, run_id, tool_name, action, correlation_id, tool_use_id, status, input_redacted, output_redacted,
      policy_decision_id, risk_level, vendor_status_code, duration_ms, created_at, updated_at)
    select c.id, $1, c.run_id, c.tool, c.action, c.correlation, c.tool_use, 'succeeded', $15::jsonb -> (c.n::int - 1), $5::jsonb,
           c.decision_id, 'low', 200, 0, c.created_at, c.updated_at
      from calls c)
  insert into ledger_events (id, org_id, sequence, hash_version, type, run_id, resource_id, actor_role, actor_key_id, metadata, created_at, prev_hash, hash)
  select e.id, $1, e.sequence, ${HASH_VERSION}, e.type, e.run_id, e.resource_id, e.actor_role, e.actor_key_id, $27::jsonb -> (e.n::int - 1),
         e.created_at, e.prev_hash, e.hash
    from unnest($20::bigint[], $21::bigint[], $22::text[], $23::uuid[], $24::text[], $25::text[], $26::uuid[], $28::timestamptz[], $29::text[], $30::text[])
      with ordinality as e(id, sequence, type, run_id, resource_id, actor_role, actor_key_id, created_at, prev_hash, hash, n)`;

export interface SeedPlan {
  org: BenchOrg;
  runs: number;
}

export interface SeedReport {
  orgs: SeedResult[];
  /** Wall time of the whole seeding, index rebuild and ANALYZE included. */
  ms: number;
  /** Secondary indexes dropped for the load and built again after it. */
  rebuiltIndexes: number;
  /** Foreign keys and triggers skipped while loading (session_replication_role = replica; superuser only). */
  replica: boolean;
}

/**
 * Seeds each plan's history in its org, as a bulk load: the tables' secondary indexes are
 * dropped first and built again after (one sort each instead of a million inserts); as a
 * superuser the load also skips foreign-key checks and triggers (`session_replication_role =
 * replica`; the rows are consistent by construction) and moves each org's head itself.
 */
export async function seedHistory(pool: pg.Pool, plans: SeedPlan[]): Promise<SeedReport> {
  const started = performance.now();
  const client = await pool.connect();
  try {
    const indexes = await client.query<{ name: string; def: string }>(
      `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def from pg_index i
        where i.indrelid = any($1::regclass[]) and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
      [SEEDED_TABLES],
    );
    for (const index of indexes.rows) await client.query(`drop index ${index.name}`);
    const replica = await client.query('set session_replication_role = replica').then(
      () => true,
      () => false,
    );
    // Without triggers, chunks need not commit in order (the head moves at the end), so two
    // connections write them: two PostgreSQL backends, while Node builds the next.
    const lanes = [client];
    if (replica) {
      const second = await pool.connect();
      lanes.push(second);
      await second.query('set session_replication_role = replica');
    }
    const orgs: SeedResult[] = [];
    try {
      for (const plan of plans) orgs.push(await seedOrg(lanes, plan.org, plan.runs));
    } finally {
      for (const lane of lanes.slice(1)) {
        await lane.query('reset session_replication_role').catch(() => undefined);
        lane.release();
      }
      if (replica) await client.query('reset session_replication_role');
      // Two at a time: PostgreSQL sorts one index per connection.
      const queue = [...indexes.rows];
      await Promise.all(
        [0, 1].map(async () => {
          for (let index = queue.shift(); index; index = queue.shift()) await pool.query(index.def);
        }),
      );
    }
    await client.query(`analyze ${SEEDED_TABLES.join(', ')}, ledger_heads`);
    return { orgs, ms: performance.now() - started, rebuiltIndexes: indexes.rows.length, replica };
  } finally {
    client.release();
  }
}

const SEEDED_TABLES = ['agent_runs', 'policy_decisions', 'tool_calls', 'ledger_events'];

async function seedOrg(lanes: pg.PoolClient[], org: BenchOrg, runs: number, endsBeforeMs = 60_000): Promise<SeedResult> {
  const started = performance.now();
  const [client] = lanes;
  const events = runs * EVENTS_PER_RUN;
  const head = await client.query<{ sequence: string; hash: string }>('select sequence::text as sequence, hash from ledger_heads where org_id = $1', [
    org.orgId,
  ]);
  // A block of ids nobody else takes: the bench writes nothing else meanwhile.
  const reserved = await client.query<{ last: string }>(
    `select setval('ledger_events_id_seq', nextval('ledger_events_id_seq') + $1 - 1)::text as last`,
    [events],
  );
  const chain = {
    nextId: BigInt(reserved.rows[0].last) - BigInt(events) + 1n,
    sequence: BigInt(head.rows[0]?.sequence ?? 0),
    hash: head.rows[0]?.hash ?? null,
  };
  const firstRunMicros = (Date.now() - endsBeforeMs - runs * RUN_SPACING_S * 1000) * 1000;
  const allowedTools = [...new Set(CALLS.map((c) => `${c.toolName}.${c.action}`))].sort();
  const runMetadata = JSON.stringify({ runtimeManifest: { allowedTools, policyVersion: 1 } });

  const inFlight: Promise<unknown>[] = lanes.map(() => Promise.resolve());
  try {
    for (let from = 0; from < runs; from += RUNS_PER_CHUNK) {
      const lane = (from / RUNS_PER_CHUNK) % lanes.length;
      const {
        runs: r,
        calls: c,
        events: e,
      } = await buildChunk(org, chain, from, Math.min(runs, from + RUNS_PER_CHUNK), firstRunMicros, allowedTools);
      await inFlight[lane];
      inFlight[lane] = lanes[lane].query(INSERT_CHUNK, [
        org.orgId,
        org.specialistId,
        runMetadata,
        org.agent.keyId,
        OUTPUT_JSON,
        pgArray(r.id),
        pgArray(r.correlation),
        pgArray(r.createdAt),
        pgArray(r.completedAt),
        pgArray(c.id),
        pgArray(c.runId),
        pgArray(c.decisionId),
        pgArray(c.tool),
        pgArray(c.action),
        JSON.stringify(c.input),
        pgArray(c.correlation),
        pgArray(c.toolUse),
        pgArray(c.createdAt),
        pgArray(c.updatedAt),
        pgArray(e.id),
        pgArray(e.sequence),
        pgArray(e.type),
        pgArray(e.runId),
        pgArray(e.resourceId),
        pgArray(e.actorRole),
        pgArray(e.actorKeyId),
        JSON.stringify(e.metadata),
        pgArray(e.createdAt),
        pgArray(e.prevHash),
        pgArray(e.hash),
      ]);
    }
    await Promise.all(inFlight);
  } finally {
    await Promise.allSettled(inFlight);
  }
  // The head trigger moved the head unless the load skipped triggers: then it moves here.
  await client.query(
    `insert into ledger_heads as h (org_id, sequence, hash) values ($1, $2, $3)
       on conflict (org_id) do update set sequence = excluded.sequence, hash = excluded.hash where h.sequence < excluded.sequence`,
    [org.orgId, String(chain.sequence), chain.hash],
  );
  return { orgId: org.orgId, runs, calls: runs * CALLS_PER_RUN, events, ms: performance.now() - started };
}

/**
 * An array parameter's text form, `{a,b,NULL}`, unquoted: every seeded value is an id, a
 * number, a hash, a timestamp or a name of letters, digits and `_.:+-` (checked).
 * node-postgres quotes and escapes each element, which costs more than the rest of a
 * chunk's building.
 */
function pgArray(values: (string | null)[]): string {
  const literal = `{${values.map((v) => v ?? 'NULL').join(',')}}`;
  if (!PLAIN_ARRAY.test(literal)) throw new Error('a seeded value needs quoting');
  return literal;
}
const PLAIN_ARRAY = /^\{([\w.:+-]+(,[\w.:+-]+)*)?\}$/;

/**
 * A version 7 UUID (RFC 9562: the time in milliseconds first, then random bits): the seeded
 * ids rise with time like the rows, so each chunk lands at the right edge of every index
 * instead of all over it, which keeps the seeding's index writes sequential.
 */
function uuidAt(micros: number): string {
  const time = Math.floor(micros / 1000)
    .toString(16)
    .padStart(12, '0');
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}

/** Canonical UTC text to the microsecond (ledger-hash.ts), from microseconds since the epoch. */
function canonicalTime(micros: number): string {
  const ms = Math.floor(micros / 1000);
  return `${new Date(ms).toISOString().slice(0, 23)}${String(micros - ms * 1000).padStart(3, '0')}Z`;
}

async function buildChunk(
  org: BenchOrg,
  chain: { nextId: bigint; sequence: bigint; hash: string | null },
  from: number,
  to: number,
  firstRunMicros: number,
  allowedTools: string[],
): Promise<Chunk> {
  const chunk: Chunk = {
    runs: { id: [], correlation: [], createdAt: [], completedAt: [] },
    calls: { id: [], runId: [], decisionId: [], tool: [], action: [], input: [], correlation: [], toolUse: [], createdAt: [], updatedAt: [] },
    events: {
      id: [],
      sequence: [],
      type: [],
      runId: [],
      resourceId: [],
      actorRole: [],
      actorKeyId: [],
      metadata: [],
      createdAt: [],
      prevHash: [],
      hash: [],
    },
  };
  const agent = org.agent;
  const append = (
    type: string,
    runId: string,
    resourceId: string,
    actor: { role: string; keyId: string } | null,
    metadata: Record<string, unknown>,
    micros: number,
  ) => {
    chain.sequence += 1n;
    const record: LedgerRecord = {
      id: String(chain.nextId++),
      orgId: org.orgId,
      sequence: String(chain.sequence),
      hashVersion: HASH_VERSION,
      type,
      runId,
      resourceId,
      actorRole: actor?.role ?? null,
      actorKeyId: actor?.keyId ?? null,
      metadata,
      createdAt: canonicalTime(micros),
      prevHash: chain.hash,
    };
    const hash = ledgerHash(record);
    if (hash === null) throw new Error('no hash for version 2');
    const e = chunk.events;
    e.id.push(record.id);
    e.sequence.push(record.sequence);
    e.type.push(type);
    e.runId.push(runId);
    e.resourceId.push(resourceId);
    e.actorRole.push(record.actorRole);
    e.actorKeyId.push(record.actorKeyId);
    e.metadata.push(metadata);
    e.createdAt.push(record.createdAt);
    e.prevHash.push(chain.hash);
    e.hash.push(hash);
    chain.hash = hash;
  };

  for (let i = from; i < to; i++) {
    // The event loop must turn now and then: it sends the previous chunk's parameters.
    if (i % 100 === 0) await new Promise(setImmediate);
    const t0 = firstRunMicros + i * RUN_SPACING_S * 1_000_000;
    const runId = uuidAt(t0);
    // A millisecond per step: created, started, each call requested and answered, completed.
    const at = (step: number) => t0 + step * 1000 + (i % 997);
    const correlation = `growth-${i}`;
    chunk.runs.id.push(runId);
    chunk.runs.correlation.push(correlation);
    chunk.runs.createdAt.push(canonicalTime(at(0)));
    chunk.runs.completedAt.push(canonicalTime(at(EVENTS_PER_RUN - 1)));
    const actor = { role: agent.role, keyId: agent.keyId as string };
    append('run.created', runId, runId, actor, { driver: 'external', specialistId: org.specialistId, allowedTools, policyVersion: 1 }, at(0));
    append('run.started', runId, runId, actor, { driver: 'external' }, at(1));
    CALLS.forEach((call, k) => {
      const callId = uuidAt(at(2 + 2 * k));
      const tool = `${call.toolName}.${call.action}`;
      const callCorrelation = `${correlation}-${k}`;
      const c = chunk.calls;
      c.id.push(callId);
      c.runId.push(runId);
      c.decisionId.push(uuidAt(at(2 + 2 * k)));
      c.tool.push(call.toolName);
      c.action.push(call.action);
      c.input.push(call.params);
      c.correlation.push(callCorrelation);
      c.toolUse.push(`toolu_growth_${i}_${k}`);
      c.createdAt.push(canonicalTime(at(2 + 2 * k)));
      c.updatedAt.push(canonicalTime(at(3 + 2 * k)));
      const requested = {
        tool,
        correlationId: callCorrelation,
        decision: 'allow',
        shadowDecision: null,
        risk: 'low',
        matchedRuleId: null,
        policyVersion: 1,
      };
      append('tool_call.requested', runId, callId, actor, requested, at(2 + 2 * k));
      append('tool_call.succeeded', runId, callId, null, { tool, durationMs: 0, retryCount: 0, costCents: 0 }, at(3 + 2 * k));
    });
    append('run.completed', runId, runId, actor, {}, at(EVENTS_PER_RUN - 1));
  }
  return chunk;
}
