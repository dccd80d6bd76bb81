import { randomUUID } from 'node:crypto';
import type { TestApp } from './app';
import { ToolGateway } from '../../src/gateway/gateway.service';
import { OrgConfigCache } from '../../src/gateway/org-config-cache';
import { ToolRegistry } from '../../src/gateway/tool-registry';
import { InFlightCalls } from '../../src/recovery/in-flight';
import { NO_FAILPOINTS } from '../../src/recovery/failpoints';
import type { ExecutionOutcome } from '../../src/executor/executor.types';
import { systemClock } from '../../src/support/clock';

/**
 * Another node (a row in toolgate_nodes, its own gateway and node id) whose executor never
 * answers: a call it starts stays `running` there, as on a node that died with it in flight.
 */
export async function dyingNode(app: TestApp): Promise<{ nodeId: string; gateway: ToolGateway }> {
  const nodeId = randomUUID();
  await app
    .em()
    .execute(
      `insert into toolgate_nodes (id, name, hostname, pid, worker_ids, started_at, heartbeat_at) values (?, ?, 'elsewhere', 1, '{}', now(), now())`,
      [nodeId, `dying-${nodeId}`],
    );
  const gateway = new ToolGateway({
    orm: app.orm,
    executor: { execute: () => new Promise<ExecutionOutcome>(() => undefined) },
    keyring: app.masterKey,
    settings: { toolCallingKillSwitch: false, approvalTtlMs: 3_600_000 },
    orgConfig: new OrgConfigCache(),
    tools: new ToolRegistry(),
    logger: app.services.logger,
    nodeId,
    inFlight: new InFlightCalls(),
    failpoints: NO_FAILPOINTS,
    clock: systemClock,
  });
  return { nodeId, gateway };
}
