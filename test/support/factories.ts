import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createOrg, createKey, createSpecialist } from '../../src/orgs/org.service';
import { ROLES, type Role } from '../../src/auth/roles';
import type { Org } from '../../src/orgs/org.entity';
import type { Specialist } from '../../src/orgs/specialist.entity';
import { AgentRun, type RunStatus } from '../../src/runs/agent-run.entity';
import { ToolCall, type ToolCallStatus } from '../../src/gateway/tool-call.entity';
import { PolicyDecision } from '../../src/policy/policy-decision.entity';
import type { PolicyOutcome } from '../../src/policy/policy-decision-outcome';
import { ApprovalRequest, type ApprovalKind, type ApprovalStatus } from '../../src/approvals/approval-request.entity';
import { appendLedgerEvent } from '../../src/ledger/ledger.service';
import type { RiskLevel } from '../../src/catalog/risk';

/**
 * Builders of domain rows for tests. Runs, tool calls, decisions and approvals are
 * written straight through the ORM, as the gateway would record them.
 */
export interface TestOrg {
  org: Org;
  specialist: Specialist;
  keys: Record<Role, string>;
}

export async function newOrg(em: EntityManager, name = `Org ${randomUUID().slice(0, 8)}`): Promise<TestOrg> {
  const { org, adminKey } = await createOrg(em, { name });
  const keys = { admin: adminKey.secret } as Record<Role, string>;
  for (const role of ROLES) keys[role] ??= (await createKey(em, org.id, role)).secret;
  const admin = { orgId: org.id, role: 'admin' as const, keyId: adminKey.id };
  const specialist = await createSpecialist(em, admin, { name: 'Support' });
  return { org, specialist, keys };
}

export async function newRun(
  em: EntityManager,
  owner: TestOrg,
  options: { status?: RunStatus; createdAt?: Date; specialistId?: string; allowedTools?: string[]; ownerKeyId?: string | null } = {},
): Promise<AgentRun> {
  return em.transactional(async (tx) => {
    const run = tx.create(AgentRun, {
      orgId: owner.org.id,
      specialistId: options.specialistId ?? owner.specialist.id,
      status: options.status ?? 'completed',
      metadata: { runtimeManifest: { allowedTools: options.allowedTools ?? ['order_lookup.lookup'], policyVersion: 1 } },
      correlationId: randomUUID(),
      ownerKeyId: options.ownerKeyId ?? null,
      createdAt: options.createdAt ?? new Date(),
    });
    await tx.flush();
    await appendLedgerEvent(tx, { orgId: owner.org.id, type: 'run.created', runId: run.id, resourceId: run.id });
    return run;
  });
}

export async function newToolCall(
  em: EntityManager,
  owner: TestOrg,
  run: AgentRun,
  options: {
    status?: ToolCallStatus;
    toolName?: string;
    action?: string;
    outcome?: PolicyOutcome;
    approval?: { kind: ApprovalKind; status?: ApprovalStatus; expiresAt?: Date };
    createdAt?: Date;
    input?: Record<string, unknown>;
    riskLevel?: RiskLevel;
  } = {},
): Promise<{ call: ToolCall; decision: PolicyDecision; approval: ApprovalRequest | null }> {
  return em.transactional(async (tx) => {
    const toolName = options.toolName ?? 'order_lookup';
    const action = options.action ?? 'lookup';
    const decision = tx.create(PolicyDecision, {
      orgId: owner.org.id,
      runId: run.id,
      toolName,
      action,
      outcome: options.outcome ?? 'allow',
      risk: 'low',
      policyVersion: 1,
      callerRole: 'agent',
      reason: 'catalog default risk low',
    });
    const call = tx.create(ToolCall, {
      orgId: owner.org.id,
      runId: run.id,
      toolName,
      action,
      correlationId: randomUUID(),
      status: options.status ?? 'succeeded',
      inputRedacted: options.input ?? { orderId: '12345' },
      outputRedacted: { status: 'shipped' },
      policyDecisionId: decision.id,
      riskLevel: options.riskLevel ?? 'low',
      createdAt: options.createdAt ?? new Date(),
    });
    let approval: ApprovalRequest | null = null;
    if (options.approval) {
      const status = options.approval.status ?? 'pending';
      approval = tx.create(ApprovalRequest, {
        orgId: owner.org.id,
        runId: run.id,
        toolCallId: call.id,
        kind: options.approval.kind,
        status,
        bindingHash: 'test-binding',
        expiresAt: options.approval.expiresAt ?? new Date(Date.now() + 86_400_000),
        resolvedAt: status === 'pending' ? null : new Date(),
      });
    }
    await tx.flush();
    await appendLedgerEvent(tx, {
      orgId: owner.org.id,
      type: 'tool_call.requested',
      runId: run.id,
      resourceId: call.id,
      metadata: { tool: `${toolName}.${action}` },
    });
    return { call, decision, approval };
  });
}
