import { useDemoApp } from '../support/demo-fixture';
import { allowedToolsFor } from '../../src/catalog/catalog.service';
import { createOrg, findOrg, findSpecialist } from '../../src/orgs/org.service';
import { readRunStart } from '../../src/runs/run-start-reads';
import { AppError } from '../../src/errors/app-error';
import { RunClient } from './run-helpers';

/**
 * startAgentRun reads what the run's manifest is frozen from in one statement: it must give
 * what the three reads it replaces gave (the specialist, its org, the tools allowed).
 */
let runs: RunClient;
const demo = useDemoApp({}, {});
beforeAll(() => {
  runs = new RunClient(demo.app, demo.seed);
});

async function separately(orgId: string, specialistId: string) {
  const em = demo.app.em();
  const specialist = await findSpecialist(em, orgId, specialistId);
  const org = await findOrg(em, orgId);
  return {
    specialist,
    org: { policyVersion: org.policyVersion, suspended: org.suspendedAt !== null },
    allowedTools: await allowedToolsFor(em, orgId, specialistId),
  };
}

const code = (error: unknown) => (error instanceof AppError ? error.code : error);

test('the demo specialist, and one bound to a single tool: as the separate reads', async () => {
  const one = await runs.specialistWith('Order desk', 'order_lookup', 'lookup');
  for (const specialistId of [demo.seed.specialistId, one]) {
    const read = await readRunStart(demo.app.em(), demo.seed.orgId, specialistId);
    expect(read).toEqual(await separately(demo.seed.orgId, specialistId));
  }
  expect((await readRunStart(demo.app.em(), demo.seed.orgId, demo.seed.specialistId)).allowedTools.length).toBeGreaterThan(1);
  expect((await readRunStart(demo.app.em(), demo.seed.orgId, one)).allowedTools).toEqual(['order_lookup.lookup']);
});

test("another org's specialist, an unknown id and a malformed one are NOT_FOUND", async () => {
  const em = demo.app.em();
  const { org: other } = await createOrg(em, { name: 'Another org' });
  await expect(readRunStart(em, other.id, demo.seed.specialistId).catch(code)).resolves.toBe('NOT_FOUND');
  await expect(readRunStart(em, demo.seed.orgId, '00000000-0000-4000-8000-000000000000').catch(code)).resolves.toBe('NOT_FOUND');
  await expect(readRunStart(em, demo.seed.orgId, 'nope').catch(code)).resolves.toBe('NOT_FOUND');
});
