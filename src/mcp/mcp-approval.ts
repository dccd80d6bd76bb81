import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type ElicitRequestFormParams,
  type ElicitResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';
import type { ApprovalKind } from '../approvals/approval-request.entity';
import { ToolCall } from '../gateway/tool-call.entity';
import { replay } from '../gateway/call-outcome';
import type { ToolCallOutcome } from '../gateway/gateway.types';

/** An approval as MCP needs it: which queue, and the exact call it is bound to. */
export interface ApprovalRef {
  approvalId: string;
  kind: ApprovalKind;
  bindingHash: string;
}

export async function findApproval(em: EntityManager, orgId: string, approvalId: string): Promise<ApprovalRef> {
  const [row] = await em.execute<ApprovalRow[]>('select id, tool_call_id, kind, binding_hash from approval_requests where org_id = ? and id = ?', [
    orgId,
    approvalId,
  ]);
  return refOf(row);
}

/** A call's state now, as the gateway answers a repeated call. */
export async function callOutcome(em: EntityManager, orgId: string, toolCallId: string): Promise<ToolCallOutcome> {
  return replay(em, await em.findOneOrFail(ToolCall, { id: toolCallId, orgId }));
}

interface ApprovalRow {
  id: string;
  tool_call_id: string;
  kind: ApprovalKind;
  binding_hash: string;
}

const refOf = (row: ApprovalRow): ApprovalRef => ({ approvalId: row.id, kind: row.kind, bindingHash: row.binding_hash });

export type ClientAnswer = { decision: 'approve' | 'reject' | null } | { deferred: InputRequiredResult };

/**
 * How a client approval reaches the person at the connected client. 2025 era: an
 * `elicitation/create` request on the session. 2026 era: an `input_required` result whose
 * `requestState` names the approval and its binding; the retried call carries the answer.
 */
export interface ClientApprovalChannel {
  /** Recorded with the resolution (the ledger names every resolution's channel). */
  readonly name: 'mcp_elicitation' | 'mcp_input_required';
  ask(question: { approvalId: string; bindingHash: string; toolName: string; params: unknown }): Promise<ClientAnswer>;
}

const INPUT_KEY = 'toolgate_approval';

function form(question: Parameters<ClientApprovalChannel['ask']>[0]): ElicitRequestFormParams {
  return {
    mode: 'form',
    message:
      `Approve this tool call? ${question.toolName} with exactly these parameters: ${JSON.stringify(question.params)} ` +
      `(approval request ${question.approvalId}, binding ${question.bindingHash.slice(0, 16)})`,
    requestedSchema: {
      type: 'object',
      properties: { decision: { type: 'string', title: 'Decision', enum: ['approve', 'reject'] } },
      required: ['decision'],
    },
  };
}

/** accept → the chosen decision; decline → reject; cancel (dismissed) → no decision, the approval stays pending. */
function decisionOf(result: { action: ElicitResult['action']; content?: Record<string, unknown> }): 'approve' | 'reject' | null {
  if (result.action === 'decline') return 'reject';
  if (result.action !== 'accept') return null;
  const decision = result.content?.decision;
  return decision === 'approve' || decision === 'reject' ? decision : null;
}

export function sessionChannel(elicit: (params: ElicitRequestFormParams) => Promise<ElicitResult>): ClientApprovalChannel {
  return {
    name: 'mcp_elicitation',
    async ask(question) {
      // Unanswered in time (the SDK's request timeout) or refused by the client: no decision,
      // the approval stays pending and the call answers "waiting", as for an expert.
      const result = await elicit(form(question)).catch(() => null);
      return { decision: result ? decisionOf(result) : null };
    },
  };
}

export function inputRequiredChannel(responses: Record<string, unknown> | undefined, requestState: unknown): ClientApprovalChannel {
  return {
    name: 'mcp_input_required',
    async ask(question) {
      const state = `${question.approvalId}.${question.bindingHash}`;
      const view = inputResponse(responses, INPUT_KEY);
      // An answer counts only for the approval and binding this round asked about.
      if (requestState === state && view.kind === 'elicit') return { decision: decisionOf(view) };
      return { deferred: inputRequired({ inputRequests: { [INPUT_KEY]: inputRequired.elicit(form(question)) }, requestState: state }) };
    },
  };
}
