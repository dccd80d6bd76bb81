import type { EntityMetadata } from '@mikro-orm/core';
import { useDemoApp } from '../support/demo-fixture';
import { newOrg, newRun, newToolCall } from '../support/factories';
import { findPlain, queryColumns, queryPlain } from '../../src/db/plain-rows';
import { rawStatements } from '../../src/db/raw-transaction';
import { createWebhookEndpoint } from '../../src/webhooks/webhook.service';
import { failRun } from '../../src/runs/run-state';
import { RunMessage } from '../../src/runs/run-message.entity';
import { ToolCall } from '../../src/gateway/tool-call.entity';

// The list and loader reads answer plain rows instead of entities: every property must hold
// what the entity's would (JSON parsed, timestamps as Dates, bigints as the ORM converts them).
const demo = useDemoApp();

beforeAll(async () => {
  const { app, gw, seed } = demo;
  // Subscribed to every webhook event: the ledger trigger writes delivery rows (bigint ids).
  const admin = { orgId: seed.orgId, role: 'admin' as const, keyId: null };
  await createWebhookEndpoint(app.em(), app.masterKey, app.services.egress, admin, {
    // Loopback (the test servers' allow list): no DNS needed; nothing is delivered here.
    url: 'http://127.0.0.1:9/in',
    eventTypes: ['approval.requested', 'approval.resolved', 'approval.expired', 'run.completed', 'run.failed'],
  });
  const started = await gw.startRun();
  await gw.execute(started.id, 'order_lookup', 'lookup', { orderId: '1001' });
  await app.em().transactional((tx) => failRun(tx, { id: started.id, orgId: seed.orgId }, 'MODEL_UNAVAILABLE', 'the model is down'));
  const owner = await newOrg(app.em(), 'Plain Rows Org');
  const run = await newRun(app.em(), owner, { status: 'waiting_approval' });
  await newToolCall(app.em(), owner, run, { status: 'waiting_approval', approval: { kind: 'expert' } });
  await app.em().transactional(async (tx) => {
    tx.create(RunMessage, { orgId: owner.org.id, runId: run.id, position: 0, role: 'user', content: [{ type: 'text', text: 'hello' }] });
  });
});

test('findPlain, queryPlain and queryColumns answer, for every entity with rows, the property values em.find hydrates', async () => {
  const { app } = demo;
  const compared: string[] = [];
  for (const meta of Object.values(app.orm.getMetadata().getAll()) as EntityMetadata[]) {
    if (meta.embeddable || meta.virtual || !meta.class || meta.primaryKeys.length !== 1) continue;
    const pk = meta.primaryKeys[0];
    const orderBy = { [pk]: 'asc' } as never;
    const entities = (await app.em().fork().find(meta.class, {}, { orderBy, limit: 20 })) as Record<string, unknown>[];
    if (entities.length === 0) continue;
    const rows = (await findPlain(app.em().fork(), meta.class, {}, { orderBy, limit: 20 })) as Record<string, unknown>[];
    const pkColumn = meta.properties[pk].fieldNames[0];
    const queried = (await queryPlain(
      app.em().fork(),
      rawStatements(app.orm),
      meta.class,
      `select * from "${meta.tableName}" order by "${pkColumn}" asc limit 20`,
      [],
    )) as Record<string, unknown>[];
    const props = meta.props.filter((p) => p.persist !== false && p.fieldNames?.length === 1).map((p) => p.name);
    const pick = (o: Record<string, unknown>) => Object.fromEntries(props.map((name) => [name, o[name]]));
    // Every column under its property's name, without the ORM's mapping: the values must be the same.
    const columns = (await queryColumns(
      app.em().fork(),
      rawStatements(app.orm),
      meta.class,
      props as never[],
      (list) => `select ${list} from "${meta.tableName}" order by "${pkColumn}" asc limit 20`,
      [],
    )) as Record<string, unknown>[];
    expect([meta.className, rows.map(pick)]).toStrictEqual([meta.className, entities.map(pick)]);
    expect([meta.className, queried.map(pick)]).toStrictEqual([meta.className, entities.map(pick)]);
    expect([meta.className, columns]).toStrictEqual([meta.className, entities.map(pick)]);
    compared.push(meta.className);
  }
  expect(compared.sort()).toEqual(
    expect.arrayContaining([
      'AgentRun',
      'ToolCall',
      'PolicyDecision',
      'ApprovalRequest',
      'LedgerEvent',
      'RunMessage',
      'Specialist',
      'ApiKey',
      'WebhookEndpoint',
      'WebhookDelivery',
    ]),
  );
});

test('queryColumns reads only the columns it is given, and refuses a property that is not one column', async () => {
  const { app, seed } = demo;
  const props = ['id', 'createdAt', 'reviewRequired'] as const;
  const [row] = await queryColumns(
    app.em().fork(),
    rawStatements(app.orm),
    ToolCall,
    props,
    (list) => `select ${list} from tool_calls where org_id = ? order by created_at limit 1`,
    [seed.orgId],
  );
  expect(Object.keys(row).sort()).toEqual(['createdAt', 'id', 'reviewRequired']);
  expect(row.createdAt).toBeInstanceOf(Date);
  expect(typeof row.reviewRequired).toBe('boolean');
  await expect(
    queryColumns(app.em().fork(), rawStatements(app.orm), ToolCall, ['nope' as 'id'], (list) => `select ${list} from tool_calls`, []),
  ).rejects.toThrow('ToolCall.nope is not one column');
});
