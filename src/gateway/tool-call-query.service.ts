import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolCall } from './tool-call.entity';
import { notFound } from '../errors/app-error';
import { isUuid } from '../db/ids';
import { findRun } from '../runs/run-query.service';
import { paginate } from '../graphql/pagination';
import { toToolCallType, type ToolCallsArgs } from './tool-call.types';

export async function findToolCall(em: EntityManager, orgId: string, toolCallId: string): Promise<ToolCall> {
  const call = isUuid(toolCallId) ? await em.findOne(ToolCall, { id: toolCallId, orgId }) : null;
  if (!call) throw notFound('Tool call');
  return call;
}

export async function listToolCalls(em: EntityManager, orgId: string, args: ToolCallsArgs) {
  const filter = args.filter ?? {};
  if (filter.runId) await findRun(em, orgId, filter.runId);
  const where = {
    orgId,
    ...(filter.runId ? { runId: filter.runId } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.toolName ? { toolName: filter.toolName } : {}),
    ...(typeof filter.reviewRequired === 'boolean' ? { reviewRequired: filter.reviewRequired } : {}),
  };
  return paginate(em, ToolCall, where, args, 'newest_first', toToolCallType);
}
