import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { Client } from 'pg';
import { runCliOn } from '../support/processes';
import { startTestApp, TEST_MASTER_KEY_HEX, type TestApp } from '../support/app';
import { newOrg, newRun, type TestOrg } from '../support/factories';
import { ledgerRowsOf, recordOf, type LedgerRow } from '../support/ledger-rows';
import { graphql } from '../gql';
import { appendLedgerEvents } from '../../src/ledger/ledger.service';
import { ledgerHash, type LedgerRecord } from '../../src/ledger/ledger-hash';
import { verifyLedger, type ChainAnchor, type LedgerVerification } from '../../src/ledger/ledger-verify';
import { takeCheckpoint, type SignedCheckpoint } from '../../src/ledger/ledger-checkpoint';

/**
 * The tamper campaign: chains of several orgs and runs, tampered with directly in
 * PostgreSQL as an attacker with database access would (triggers off for the session,
 * session_replication_role = replica), one attack at a time; verification must name the
 * right row. Attacks that rewrite the chain and its head together verify "ok" against the
 * database alone — a signed checkpoint taken before them must catch them.
 */
const _CLI = path.join(__dirname, '..', '..', 'dist', 'src', 'cli.js');
jest.setTimeout(120_000);

const VERIFY = graphql(`
  query VerifyLedger {
    verifyLedger { ok eventsChecked firstBadSequence firstBadEventId problem }
  }
`);

let app: TestApp;
let tamper: Client;
let signing: { privateKey: KeyObject; publicKey: KeyObject };
let dir: string;

beforeAll(async () => {
  app = await startTestApp();
  tamper = new Client({ connectionString: app.db.url });
  await tamper.connect();
  await tamper.query('set session_replication_role = replica');
  signing = generateKeyPairSync('ed25519');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-ledger-'));
});

afterAll(async () => {
  await tamper?.end();
  await app?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface World {
  owner: TestOrg;
  runs: string[];
  rows: LedgerRow[];
  /** A middle event with every column set (run, resource, actor, metadata). */
  k: number;
}

/** An org with two runs whose events are appended singly and in batches, and a bystander org interleaved. */
async function world(): Promise<World> {
  const owner = await newOrg(app.em());
  const bystander = await newOrg(app.em());
  const runs: string[] = [];
  for (let r = 0; r < 2; r++) {
    const run = await newRun(app.em(), owner);
    runs.push(run.id);
    await app.em().transactional((tx) =>
      appendLedgerEvents(tx, [
        {
          orgId: owner.org.id,
          type: 'tool_call.requested',
          runId: run.id,
          resourceId: randomUUID(),
          actor: { role: 'agent', keyId: randomUUID() },
          metadata: { r, amount: 120.5, tags: ['a', 'ü'], nested: { z: null, a: 1 } },
        },
        { orgId: owner.org.id, type: 'tool_call.succeeded', runId: run.id, resourceId: randomUUID(), metadata: { r } },
      ]),
    );
    await app.em().transactional((tx) => appendLedgerEvents(tx, [{ orgId: bystander.org.id, type: 'policy.changed', metadata: { r } }]));
  }
  await app.em().transactional((tx) =>
    appendLedgerEvents(tx, [
      { orgId: owner.org.id, type: 'run.completed', runId: runs[0], resourceId: runs[0] },
      { orgId: owner.org.id, type: 'policy.changed', actor: { role: 'admin', keyId: randomUUID() }, metadata: { rules: 2 } },
    ]),
  );
  const rows = await ledgerRowsOf(tamper, owner.org.id);
  const k = rows.findIndex((row) => row.type === 'tool_call.requested' && row.metadata.r === 1) + 1;
  expect(k).toBeGreaterThan(2);
  expect(k).toBeLessThan(rows.length - 1);
  expect(await verify(owner)).toEqual(ok(rows.length));
  return { owner, runs, rows, k };
}

const verify = (owner: TestOrg, anchor: ChainAnchor | null = null) => verifyLedger(app.em(), owner.org.id, anchor);
const ok = (events: number): Omit<LedgerVerification, 'orgId'> & { orgId: string } =>
  expect.objectContaining({ ok: true, eventsChecked: events, firstBadSequence: null, firstBadEventId: null, problem: null });

function broken(row: Pick<LedgerRow, 'sequence' | 'id'> | { sequence: string; id: null }, problem: string, eventsChecked: number) {
  return expect.objectContaining({
    ok: false,
    firstBadSequence: String(row.sequence),
    firstBadEventId: row.id === null ? null : String(row.id),
    problem,
    eventsChecked,
  });
}

const missing = (sequence: number) => ({ sequence: String(sequence), id: null });
const anchorOf = (checkpoint: SignedCheckpoint, owner: TestOrg) => checkpoint.statement.heads.find((h) => h.orgId === owner.org.id)!;

/** Rewrites events from the k-th on (metadata of the k-th changed) with hashes that link: a consistent forgery. */
async function rehashTail(w: World, from: number, moveHead: boolean): Promise<void> {
  const rows = await ledgerRowsOf(tamper, w.owner.org.id);
  let prev = rows[from - 2].hash;
  for (const row of rows.slice(from - 1)) {
    const record: LedgerRecord = { ...recordOf(row), prevHash: prev };
    if (row.sequence === String(from)) record.metadata = { ...record.metadata, rewritten: true };
    prev = ledgerHash(record)!;
    await tamper.query('update ledger_events set metadata = $1, prev_hash = $2, hash = $3 where id = $4', [
      record.metadata,
      record.prevHash,
      prev,
      row.id,
    ]);
  }
  if (moveHead) await tamper.query('update ledger_heads set hash = $1 where org_id = $2', [prev, w.owner.org.id]);
}

/** Each stored column, edited on the k-th event; what verification must report. */
const EDITS: Record<string, { set: string; problem: string; at: 'k' | 'next' }> = {
  id: { set: "id = nextval('ledger_events_id_seq')", problem: 'hash_mismatch', at: 'k' },
  org_id: { set: 'org_id = $2', problem: 'sequence_gap', at: 'next' },
  sequence: { set: 'sequence = sequence + 1000', problem: 'sequence_gap', at: 'next' },
  hash_version: { set: 'hash_version = 1', problem: 'hash_mismatch', at: 'k' },
  type: { set: "type = 'tool_call.blocked'", problem: 'hash_mismatch', at: 'k' },
  run_id: { set: 'run_id = null', problem: 'hash_mismatch', at: 'k' },
  resource_id: { set: "resource_id = resource_id || '-x'", problem: 'hash_mismatch', at: 'k' },
  actor_role: { set: "actor_role = 'admin'", problem: 'hash_mismatch', at: 'k' },
  actor_key_id: { set: 'actor_key_id = gen_random_uuid()', problem: 'hash_mismatch', at: 'k' },
  metadata: { set: `metadata = jsonb_set(metadata, '{amount}', '120.25')`, problem: 'hash_mismatch', at: 'k' },
  created_at: { set: "created_at = created_at + interval '1 microsecond'", problem: 'hash_mismatch', at: 'k' },
  prev_hash: { set: 'prev_hash = md5(prev_hash) || md5(prev_hash)', problem: 'broken_link', at: 'k' },
  hash: { set: 'hash = md5(hash) || md5(hash)', problem: 'hash_mismatch', at: 'k' },
};

describe('every stored column, edited', () => {
  test('the campaign edits every column of ledger_events', async () => {
    const columns = await tamper.query<{ column_name: string }>(
      "select column_name from information_schema.columns where table_schema = 'public' and table_name = 'ledger_events'",
    );
    expect(Object.keys(EDITS).sort()).toEqual(columns.rows.map((c) => c.column_name).sort());
  });

  test.each(Object.entries(EDITS))('%s: detected at the right row', async (_column, edit) => {
    const w = await world();
    const row = w.rows[w.k - 1];
    // An org of its own with no events, so the moved event collides with nothing.
    const spare = randomUUID();
    await tamper.query("insert into orgs (id, name, created_at) values ($1, 'Spare', now())", [spare]);
    const edited = await tamper.query<{ id: string }>(`update ledger_events set ${edit.set} where id = $1 and $2::uuid is not null returning id`, [
      row.id,
      spare,
    ]);
    // (The id edit is named by the event's new id.)
    const at = edit.at === 'k' ? { sequence: row.sequence, id: edited.rows[0].id } : w.rows[w.k];
    const expected = broken(at, edit.problem, w.k - 1);
    expect(await verify(w.owner)).toEqual(expected);
  });
});

describe('deleted, swapped and forged events', () => {
  test('a middle event deleted: sequence_gap at the next one', async () => {
    const w = await world();
    await tamper.query('delete from ledger_events where id = $1', [w.rows[w.k - 1].id]);
    expect(await verify(w.owner)).toEqual(broken(w.rows[w.k], 'sequence_gap', w.k - 1));
  });

  test('the newest event deleted: truncated at its sequence (GraphQL says so too)', async () => {
    const w = await world();
    const n = w.rows.length;
    await tamper.query('delete from ledger_events where id = $1', [w.rows[n - 1].id]);
    expect(await verify(w.owner)).toEqual(broken(missing(n), 'truncated', n - 1));
    const res = await app.gql(VERIFY, { key: w.owner.keys.admin });
    expect(res.body.data?.verifyLedger).toEqual({
      ok: false,
      eventsChecked: n - 1,
      firstBadSequence: String(n),
      firstBadEventId: null,
      problem: 'truncated',
    });
  });

  test('the three newest deleted: truncated at the first of them', async () => {
    const w = await world();
    const n = w.rows.length;
    await tamper.query('delete from ledger_events where org_id = $1 and sequence > $2', [w.owner.org.id, n - 3]);
    expect(await verify(w.owner)).toEqual(broken(missing(n - 2), 'truncated', n - 3));
  });

  test("all of an org's events deleted: truncated at 1", async () => {
    const w = await world();
    await tamper.query('delete from ledger_events where org_id = $1', [w.owner.org.id]);
    expect(await verify(w.owner)).toEqual(broken(missing(1), 'truncated', 0));
  });

  test('an appended event after the newest has been deleted: the gap shows', async () => {
    const w = await world();
    const n = w.rows.length;
    await tamper.query('delete from ledger_events where id = $1', [w.rows[n - 1].id]);
    // The next append links to the head, not to what is left of the chain.
    const [next] = await app.em().transactional((tx) => appendLedgerEvents(tx, [{ orgId: w.owner.org.id, type: 'policy.changed' }]));
    expect(next.sequence).toBe(String(n + 1));
    expect(await verify(w.owner)).toEqual(broken(next, 'sequence_gap', n - 1));
  });

  test('two events swapped (all content, links and hashes): broken_link at the first', async () => {
    const w = await world();
    const [a, b] = [w.rows[w.k - 1], w.rows[w.k]];
    const set =
      'type = $2, run_id = $3, resource_id = $4, actor_role = $5, actor_key_id = $6, metadata = $7, prev_hash = $8, hash = $9, created_at = $10';
    const values = (r: LedgerRow) => [
      r.type,
      r.run_id,
      r.resource_id,
      r.actor_role,
      r.actor_key_id,
      r.metadata,
      r.prev_hash,
      r.hash,
      r.created_at_text,
    ];
    await tamper.query(`update ledger_events set ${set} where id = $1`, [a.id, ...values(b)]);
    await tamper.query(`update ledger_events set ${set} where id = $1`, [b.id, ...values(a)]);
    expect(await verify(w.owner)).toEqual(broken(a, 'broken_link', w.k - 1));
  });

  test('a forged event appended with a correct link and hash, head left: head_mismatch at it', async () => {
    const w = await world();
    const last = recordOf(w.rows[w.rows.length - 1]);
    const [{ id }] = (await tamper.query<{ id: string }>("select nextval('ledger_events_id_seq')::text as id")).rows;
    const forged: LedgerRecord = {
      ...last,
      id,
      sequence: String(w.rows.length + 1),
      prevHash: w.rows[w.rows.length - 1].hash,
      metadata: { forged: true },
    };
    await tamper.query(
      `insert into ledger_events (id, org_id, sequence, hash_version, type, run_id, resource_id, actor_role, actor_key_id, metadata, created_at, prev_hash, hash)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        forged.id,
        forged.orgId,
        forged.sequence,
        forged.hashVersion,
        forged.type,
        forged.runId,
        forged.resourceId,
        forged.actorRole,
        forged.actorKeyId,
        forged.metadata,
        forged.createdAt,
        forged.prevHash,
        ledgerHash(forged),
      ],
    );
    expect(await verify(w.owner)).toEqual(broken({ sequence: forged.sequence, id }, 'head_mismatch', w.rows.length));
  });

  test('the head row deleted: head_mismatch at the first event (none is under a head)', async () => {
    const w = await world();
    await tamper.query('delete from ledger_heads where org_id = $1', [w.owner.org.id]);
    expect(await verify(w.owner)).toEqual(broken(w.rows[0], 'head_mismatch', 0));
  });
});

describe('rewrites the database alone cannot see, and the checkpoint that does', () => {
  /** A world, a checkpoint of it, and events appended after the checkpoint. */
  async function checkpointed(): Promise<World & { checkpoint: SignedCheckpoint; anchor: ChainAnchor }> {
    const w = await world();
    const checkpoint = await takeCheckpoint(app.em(), signing.privateKey);
    const anchor = anchorOf(checkpoint, w.owner);
    expect(anchor).toEqual({ orgId: w.owner.org.id, sequence: String(w.rows.length), hash: w.rows[w.rows.length - 1].hash });
    await app.em().transactional((tx) =>
      appendLedgerEvents(tx, [
        { orgId: w.owner.org.id, type: 'policy.changed', metadata: { after: 1 } },
        { orgId: w.owner.org.id, type: 'policy.changed', metadata: { after: 2 } },
      ]),
    );
    const rows = await ledgerRowsOf(tamper, w.owner.org.id);
    expect(await verify(w.owner, anchor)).toEqual(ok(rows.length));
    return { ...w, rows, checkpoint, anchor };
  }

  test('tail re-hashed, head left: head_mismatch at the head; with the checkpoint, at its sequence', async () => {
    const w = await checkpointed();
    await rehashTail(w, w.k, false);
    const n = w.rows.length;
    expect(await verify(w.owner)).toEqual(broken(w.rows[n - 1], 'head_mismatch', n - 1));
    const c = Number(w.anchor.sequence);
    expect(await verify(w.owner, w.anchor)).toEqual(broken(w.rows[c - 1], 'checkpoint_mismatch', c - 1));
  });

  test('tail re-hashed and head moved with it: ok without a checkpoint, checkpoint_mismatch with it', async () => {
    const w = await checkpointed();
    await rehashTail(w, w.k, true);
    expect(await verify(w.owner)).toEqual(ok(w.rows.length));
    const c = Number(w.anchor.sequence);
    expect(await verify(w.owner, w.anchor)).toEqual(broken(w.rows[c - 1], 'checkpoint_mismatch', c - 1));
  });

  test('only events after the checkpoint re-hashed with the head: the checkpoint still holds (it vouches for what came before)', async () => {
    const w = await checkpointed();
    await rehashTail(w, Number(w.anchor.sequence) + 1, true);
    expect(await verify(w.owner, w.anchor)).toEqual(ok(w.rows.length));
  });

  test('cut back before the checkpoint, head moved back: ok without it, truncated with it', async () => {
    const w = await checkpointed();
    const keep = w.k;
    await tamper.query('delete from ledger_events where org_id = $1 and sequence > $2', [w.owner.org.id, keep]);
    await tamper.query('update ledger_heads set sequence = $1, hash = $2 where org_id = $3', [keep, w.rows[keep - 1].hash, w.owner.org.id]);
    expect(await verify(w.owner)).toEqual(ok(keep));
    expect(await verify(w.owner, w.anchor)).toEqual(broken(missing(keep + 1), 'truncated', keep));
  });

  test('every event and the head deleted: ok (nothing left to check) without it, truncated at 1 with it', async () => {
    const w = await checkpointed();
    await tamper.query('delete from ledger_events where org_id = $1', [w.owner.org.id]);
    await tamper.query('delete from ledger_heads where org_id = $1', [w.owner.org.id]);
    expect(await verify(w.owner)).toEqual(ok(0));
    expect(await verify(w.owner, w.anchor)).toEqual(broken(missing(1), 'truncated', 0));
  });
});

describe('events hashed before version 2', () => {
  /** An org whose first three events are version 1 (as the migration left them), then appends of today. */
  async function legacyWorld(): Promise<{ owner: TestOrg; rows: LedgerRow[] }> {
    const owner = await newOrg(app.em(), 'Legacy');
    // The org's own events are moved aside: the chain starts with the legacy ones.
    await tamper.query('update ledger_events set org_id = (select id from orgs where id <> $1 limit 1), sequence = -id where org_id = $1', [
      owner.org.id,
    ]);
    let prev: string | null = null;
    for (let i = 1; i <= 3; i++) {
      const [{ id }] = (await tamper.query<{ id: string }>("select nextval('ledger_events_id_seq')::text as id")).rows;
      const record: LedgerRecord = {
        id,
        orgId: owner.org.id,
        sequence: String(i),
        hashVersion: 1,
        type: 'policy.changed',
        runId: null,
        resourceId: null,
        actorRole: 'admin',
        actorKeyId: null,
        metadata: { i },
        createdAt: `2026-11-30T10:00:0${i}.123000Z`,
        prevHash: prev,
      };
      prev = ledgerHash(record)!;
      await tamper.query(
        `insert into ledger_events (id, org_id, sequence, hash_version, type, actor_role, metadata, created_at, prev_hash, hash)
         values ($1, $2, $3, 1, $4, $5, $6, $7, $8, $9)`,
        [id, owner.org.id, i, record.type, record.actorRole, record.metadata, record.createdAt, record.prevHash, prev],
      );
    }
    await tamper.query('update ledger_heads set sequence = 3, hash = $1 where org_id = $2', [prev, owner.org.id]);
    await app.em().transactional((tx) => appendLedgerEvents(tx, [{ orgId: owner.org.id, type: 'policy.changed' }]));
    const rows = await ledgerRowsOf(tamper, owner.org.id);
    expect(rows.map((r) => r.hash_version)).toEqual([1, 1, 1, 2]);
    expect(await verifyLedger(app.em(), owner.org.id)).toEqual(ok(4));
    return { owner, rows };
  }

  test('verify as written; a content edit is still seen', async () => {
    const { owner, rows } = await legacyWorld();
    await tamper.query(`update ledger_events set metadata = '{"i": 9}' where id = $1`, [rows[1].id]);
    expect(await verify(owner)).toEqual(broken(rows[1], 'hash_mismatch', 1));
  });

  test('a microsecond edit is seen too (version 1 events were written in whole milliseconds)', async () => {
    const { owner, rows } = await legacyWorld();
    await tamper.query("update ledger_events set created_at = created_at + interval '1 microsecond' where id = $1", [rows[0].id]);
    expect(await verify(owner)).toEqual(broken(rows[0], 'hash_mismatch', 0));
  });

  test('a version 2 event passed off as version 1 (its hash recomputed the old way): the head no longer matches', async () => {
    const { owner, rows } = await legacyWorld();
    const downgraded: LedgerRecord = { ...recordOf(rows[3]), hashVersion: 1, createdAt: rows[3].created_at_text.replace(/\d{3}Z$/, '000Z') };
    await tamper.query('update ledger_events set hash_version = 1, created_at = $1, hash = $2 where id = $3', [
      downgraded.createdAt,
      ledgerHash(downgraded),
      rows[3].id,
    ]);
    // The newest event: its new hash is not the head's.
    expect(await verify(owner)).toEqual(broken(rows[3], 'head_mismatch', 3));
  });
});

const cli = (args: string[], env: Record<string, string> = {}) => runCliOn(app.db, TEST_MASTER_KEY_HEX, args, env);

describe('toolgate ledger checkpoint and verify --checkpoint', () => {
  const pem = (key: KeyObject, type: 'pkcs8' | 'spki') => key.export({ type, format: 'pem' }) as string;

  test('sign, keep, verify; a rewrite before the checkpoint exits 1 naming the org and sequence; a bad signature is refused', async () => {
    const w = await world();
    const signingEnv = { TOOLGATE_LEDGER_SIGNING_KEY: pem(signing.privateKey, 'pkcs8') };
    const file = path.join(dir, 'checkpoint.json');
    const publicKey = path.join(dir, 'ledger.pub.pem');
    fs.writeFileSync(publicKey, pem(signing.publicKey, 'spki'));

    const taken = await cli(['ledger', 'checkpoint', '--out', file], signingEnv);
    expect(taken).toMatchObject({ code: 0, stderr: '' });
    expect(taken.stdout).toMatch(/^Checkpoint of \d+ org head\(s\) signed with ed25519:[0-9a-f]{32} written to /);
    const checkpoint = JSON.parse(fs.readFileSync(file, 'utf8')) as SignedCheckpoint;
    const anchor = anchorOf(checkpoint, w.owner);
    expect(anchor.sequence).toBe(String(w.rows.length));

    const verifyArgs = ['ledger', 'verify', '--org', w.owner.org.id, '--checkpoint', file, '--public-key', publicKey];
    const [clean, cleanJson] = await Promise.all([cli(verifyArgs), cli([...verifyArgs, '--json'])]);
    expect(clean).toEqual({
      code: 0,
      stdout: `org ${w.owner.org.id}: ok (${w.rows.length} events, checkpoint at sequence ${anchor.sequence})\n`,
      stderr: '',
    });
    expect(JSON.parse(cleanJson.stdout)).toMatchObject({ ok: true, checkpointSequence: anchor.sequence });

    await rehashTail(w, w.k, true);
    const c = w.rows.length;
    const [rewritten, noKey] = await Promise.all([cli(verifyArgs), cli(['ledger', 'verify', '--org', w.owner.org.id, '--checkpoint', file])]);
    expect(rewritten).toEqual({
      code: 1,
      stdout: `org ${w.owner.org.id}: BROKEN at sequence ${c} (event ${w.rows[c - 1].id}): checkpoint_mismatch\n`,
      stderr: '',
    });
    // Without a key to check the signature with: bad usage.
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('--public-key');

    // The statement edited to match the rewrite: its signature no longer holds.
    const forgedHash = (await ledgerRowsOf(tamper, w.owner.org.id))[c - 1].hash;
    const forged = {
      ...checkpoint,
      statement: {
        ...checkpoint.statement,
        heads: checkpoint.statement.heads.map((h) => (h.orgId === w.owner.org.id ? { ...h, hash: forgedHash } : h)),
      },
    };
    const forgedFile = path.join(dir, 'forged.json');
    fs.writeFileSync(forgedFile, JSON.stringify(forged));
    const otherKey = path.join(dir, 'other.pub.pem');
    fs.writeFileSync(otherKey, pem(generateKeyPairSync('ed25519').publicKey, 'spki'));
    const garbled = path.join(dir, 'garbled.json');
    fs.writeFileSync(garbled, '{"statement": ');
    const [forgedRun, wrongKey, garbledRun] = await Promise.all([
      cli(['ledger', 'verify', '--org', w.owner.org.id, '--checkpoint', forgedFile, '--public-key', publicKey]),
      cli(['ledger', 'verify', '--org', w.owner.org.id, '--checkpoint', file, '--public-key', otherKey]),
      cli(['ledger', 'verify', '--org', w.owner.org.id, '--checkpoint', garbled], signingEnv),
    ]);
    expect(forgedRun).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(/^toolgate: CHECKPOINT_SIGNATURE_INVALID: /) });
    expect(wrongKey).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(/^toolgate: CHECKPOINT_SIGNATURE_INVALID: /) });
    expect(garbledRun).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(/^toolgate: CHECKPOINT_INVALID: /) });
  });

  test('without a signing key, `ledger checkpoint` is a configuration error (exit 2) and writes nothing', async () => {
    const file = path.join(dir, 'none.json');
    const [unset, bad] = await Promise.all([
      cli(['ledger', 'checkpoint', '--out', file]),
      cli(['ledger', 'checkpoint', '--out', file], { TOOLGATE_LEDGER_SIGNING_KEY: 'not a key' }),
    ]);
    expect(unset).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('TOOLGATE_LEDGER_SIGNING_KEY') });
    expect(bad).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('TOOLGATE_LEDGER_SIGNING_KEY must be an Ed25519 private key') });
    expect(fs.existsSync(file)).toBe(false);
  });

  test('an org the checkpoint names, deleted with its events and head: truncated at 1 in a verify of every org', async () => {
    const w = await world();
    const file = path.join(dir, 'before-delete.json');
    fs.writeFileSync(file, JSON.stringify(await takeCheckpoint(app.em(), signing.privateKey)));
    const publicKey = path.join(dir, 'delete.pub.pem');
    fs.writeFileSync(publicKey, pem(signing.publicKey, 'spki'));
    for (const table of ['ledger_events', 'ledger_heads', 'api_keys', 'specialists', 'agent_runs']) {
      await tamper.query(`delete from ${table} where org_id = $1`, [w.owner.org.id]);
    }
    await tamper.query('delete from orgs where id = $1', [w.owner.org.id]);
    const res = await cli(['ledger', 'verify', '--checkpoint', file, '--public-key', publicKey]);
    expect(res.code).toBe(1);
    expect(res.stdout.split('\n')).toContain(`org ${w.owner.org.id}: BROKEN at sequence 1 (missing): truncated`);
  });

  test('the truncation line names the first missing sequence', async () => {
    const w = await world();
    const n = w.rows.length;
    await tamper.query('delete from ledger_events where id = $1', [w.rows[n - 1].id]);
    const res = await cli(['ledger', 'verify', '--org', w.owner.org.id]);
    expect(res).toEqual({ code: 1, stdout: `org ${w.owner.org.id}: BROKEN at sequence ${n} (missing): truncated\n`, stderr: '' });
  });
});
