import { print } from 'graphql';
import { graphql } from '../gql';
import { LedgerEventsDocument } from '../../gql/graphql';
import { errorCode } from '../support/app';
import { useDemoApp } from '../support/demo-fixture';
import { SET_TOOL_PERMISSION } from '../support/documents';
import { runOverSocket, socket } from '../support/graphql-http';

/**
 * PostgreSQL cannot store or compare text with NUL (U+0000). A NUL in any string argument —
 * a variable or an inline literal, on HTTP or graphql-ws — is BAD_USER_INPUT naming where it
 * was, before anything runs: nothing is written, no database error is logged.
 */
const demo = useDemoApp({}, { captureLogs: true });

const TOOL_CALLS_BY_TOOL = graphql(`
  query ToolCallsByTool($filter: ToolCallFilter) {
    toolCalls(filter: $filter, first: 5) { totalCount }
  }
`);

const NUL = 'order\u0000lookup';

test.each([
  ['ledgerEvents filter type', LedgerEventsDocument, { filter: { type: NUL } }, '$.filter.type'],
  ['ledgerEvents filter resourceId', LedgerEventsDocument, { filter: { resourceId: NUL } }, '$.filter.resourceId'],
  ['toolCalls filter toolName', TOOL_CALLS_BY_TOOL, { filter: { toolName: NUL } }, '$.filter.toolName'],
  ['setToolPermission toolName', SET_TOOL_PERMISSION, { tool: NUL, action: 'lookup', enabled: false }, '$.tool'],
] as const)('a NUL in %s is BAD_USER_INPUT with its path, over HTTP and graphql-ws', async (_label, document, variables, field) => {
  const { app, seed } = demo;
  const before = await app.em().execute<{ n: string }[]>('select count(*) as n from ledger_events');
  app.logs.length = 0;
  const res = await app.gql(document as never, { key: seed.keys.admin, variables: variables as never });
  expect(res.status).toBe(400);
  expect(errorCode(res)).toBe('BAD_USER_INPUT');
  expect(res.body.errors?.[0]?.extensions).toMatchObject({ field });
  expect(app.logs.filter((line) => /"level":(50|40)/.test(line))).toEqual([]);

  const ws = socket(app.wsUrl, seed.keys.admin);
  try {
    const outcome = await runOverSocket(ws.client, { query: print(document), variables });
    expect(outcome.kind).toBe('error');
    if (outcome.kind === 'error') expect(outcome.errors[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
  } finally {
    await ws.close();
  }
  expect(await app.em().execute('select count(*) as n from ledger_events')).toEqual(before);
});

test('a NUL in an inline string literal is refused the same way', async () => {
  const res = await demo.app.gql('{ ledgerEvents(filter: { type: "a\\u0000b" }) { totalCount } }', { key: demo.seed.keys.admin });
  expect(res.status).toBe(400);
  expect(errorCode(res)).toBe('BAD_USER_INPUT');
  expect(res.body.errors?.[0]?.extensions).toMatchObject({ field: 'query' });
});

test('strings without NUL pass as before', async () => {
  const res = await demo.app.gql(TOOL_CALLS_BY_TOOL, { key: demo.seed.keys.admin, variables: { filter: { toolName: 'order_lookup' } } });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data?.toolCalls.totalCount).toBe(0);
});
