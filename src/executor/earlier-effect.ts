import type { EntityManager } from '@mikro-orm/postgresql';
import { callFingerprint } from '../gateway/call-fingerprint';
import type { ExecutionRequest } from './executor.types';

/**
 * Whether an earlier call of the same request in the run (its fingerprint) may have acted
 * without a plain answer: it failed, was flagged for review, was settled by asking the vendor
 * after an uncertain attempt, or was cut by a crash. Only then does a non-idempotent action
 * look for that call's effect before creating (the customer asking again after a timeout);
 * a request repeated after a plain success is a new effect, as the agent asked.
 */
export async function earlierEffectMayExist(em: EntityManager, request: ExecutionRequest): Promise<boolean> {
  const fingerprint = callFingerprint({ runId: request.runId, toolName: request.tool.toolName, action: request.tool.action, params: request.params });
  const [row] = await em.execute<{ found: boolean }[]>(
    `select exists (
       select 1 from tool_calls c
        where c.run_id = ? and c.fingerprint = ? and c.id <> ?
          and (c.status = 'failed' or c.review_required
               or exists (select 1 from ledger_events e
                           where e.org_id = c.org_id and e.resource_id = c.id::text
                             and (e.type = 'tool_call.interrupted' or jsonb_exists(e.metadata, 'uncertain'))))
     ) as found`,
    [request.runId, fingerprint, request.toolCallId],
  );
  return row?.found === true;
}
