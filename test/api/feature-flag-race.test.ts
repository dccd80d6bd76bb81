import { startTestApp, type TestApp } from '../support/app';
import { newOrg } from '../support/factories';
import { SetFeatureFlagDocument } from '../../gql/graphql';
import { FeatureFlag } from '../../src/orgs/feature-flag.entity';
import { LedgerEvent } from '../../src/ledger/ledger-event.entity';

/**
 * Concurrent first writes of a new flag (two admins, a retried request): every one is
 * answered, one row results, and each change is in the ledger — no unique violation
 * surfacing as INTERNAL_SERVER_ERROR.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

test('four concurrent first setFeatureFlag calls for a new flag all succeed, on one row', async () => {
  const { org, keys } = await newOrg(app.em());
  const answers = await Promise.all(
    [true, false, true, true].map((enabled) => app.gql(SetFeatureFlagDocument, { key: keys.admin, variables: { key: 'beta.new_flag', enabled } })),
  );
  expect(answers.map((a) => a.body.errors?.[0]?.extensions?.code ?? 'ok')).toEqual(['ok', 'ok', 'ok', 'ok']);
  const rows = await app.em().fork().find(FeatureFlag, { orgId: org.id, key: 'beta.new_flag' });
  expect(rows).toHaveLength(1);
  const events = await app
    .em()
    .fork()
    .find(LedgerEvent, { orgId: org.id, type: 'feature_flag.changed' }, { orderBy: { sequence: 'asc' } });
  const changes = events.map((e) => e.metadata as { key: string; enabled: boolean; previous: boolean });
  expect(changes.filter((c) => c.key === 'beta.new_flag')).toHaveLength(4);
  // Serialized: each change's `previous` is what the one before it set (the first found no row: off).
  const mine = changes.filter((c) => c.key === 'beta.new_flag');
  expect(mine[0].previous).toBe(false);
  for (let i = 1; i < mine.length; i += 1) expect(mine[i].previous).toBe(mine[i - 1].enabled);
  expect(rows[0].enabled).toBe(mine[3].enabled);
});
