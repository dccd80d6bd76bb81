import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { readableRunIds } from '../runs/run-visibility';
import { ToolCall } from './tool-call.entity';
import { notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { findRun } from '../runs/run-query.service';
import { paginate } from '../graphql/paging';
import { toToolCallType, type ToolCallsArgs } from './tool-call.types';

/** A tool call of a run the caller reads (RUN_SCOPE); any other is NOT_FOUND. */
export async function findToolCall(em: EntityManager, caller: Caller, toolCallId: string): Promise<ToolCall> {
  const runs = readableRunIds(em, caller);
  const call = isUuid(toolCallId)
    ? await em.findOne(ToolCall, { id: toolCallId, orgId: caller.orgId, ...(runs ? { runId: { $in: runs } } : {}) } as FilterQuery<ToolCall>)
    : null;
  if (!call) throw notFound('Tool call');
  return call;
}

export async function listToolCalls(em: EntityManager, caller: Caller, args: ToolCallsArgs) {
  const filter = args.filter ?? {};
  const orgId = caller.orgId;
  if (filter.runId) await findRun(em, caller, filter.runId);
  const runs = filter.runId ? null : readableRunIds(em, caller);
  const where = {
    orgId,
    ...(runs ? { runId: { $in: runs } } : {}),
    ...(filter.runId ? { runId: filter.runId } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.toolName ? { toolName: filter.toolName } : {}),
    ...(typeof filter.reviewRequired === 'boolean' ? { reviewRequired: filter.reviewRequired } : {}),
    ...(typeof filter.reviewAcknowledged === 'boolean' ? { reviewAcknowledgedAt: filter.reviewAcknowledged ? { $ne: null } : null } : {}),
  };
  return paginate(em, ToolCall, where as FilterQuery<ToolCall>, args, 'newest_first', toToolCallType);
}
