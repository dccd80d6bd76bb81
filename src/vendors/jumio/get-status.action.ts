import { VendorProtocolError, type VendorAction, type VendorContext } from '../vendor-handler';
import { idString } from '../input-schema';
import { jumioRetrievalGet } from './jumio.transport';

/**
 * kyc_check.get_status: the status and decision of one Jumio KYX workflow execution.
 *
 * Retrieval API (documentation.jumio.ai, "Retrieval" / implementation-guides api_guide.md):
 * 1. GET /api/v1/accounts/{accountId}/workflow-executions/{workflowExecutionId}/status
 *    → { account: { id }, workflowExecution: { id, definitionKey, status } }
 * 2. Only when status is PROCESSED (Jumio's best practice: retrieve details once it is
 *    processed), GET /api/v1/accounts/{accountId}/workflow-executions/{workflowExecutionId}
 *    → { completedAt, decision: { type, details: { label }, risk: { score } }, capabilities }
 */
export interface KycStatusInput {
  accountId: string;
  workflowExecutionId: string;
}

export type JumioDecisionType = 'PASSED' | 'REJECTED' | 'WARNING' | 'NOT_EXECUTED';

export interface KycStatusResult {
  accountId: string;
  workflowExecutionId: string;
  /** INITIATED, ACQUIRED, PROCESSED, SESSION_EXPIRED, TOKEN_EXPIRED (Jumio's values). */
  status: string;
  definitionKey: string | null;
  /** null until the execution is PROCESSED. */
  decision: { type: JumioDecisionType; label: string | null; riskScore: number | null } | null;
  completedAt: string | null;
  checks: { name: string; decision: JumioDecisionType; label: string | null }[];
}

const DECISION_TYPES: readonly string[] = ['PASSED', 'REJECTED', 'WARNING', 'NOT_EXECUTED'];
/** Jumio enums are upper-case identifiers; anything else is not passed on to the model. */
const ENUM_VALUE = /^[A-Z][A-Z0-9_]{0,63}$/;
const CAPABILITY_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function invalid(): never {
  throw new VendorProtocolError(200);
}

function enumValue(value: unknown): string {
  if (typeof value !== 'string' || !ENUM_VALUE.test(value)) invalid();
  return value;
}

function optionalEnum(value: unknown): string | null {
  return value === undefined || value === null ? null : enumValue(value);
}

function decisionType(value: unknown): JumioDecisionType {
  if (typeof value !== 'string' || !DECISION_TYPES.includes(value)) invalid();
  return value as JumioDecisionType;
}

function timestamp(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) invalid();
  return new Date(value).toISOString();
}

function decision(value: unknown): NonNullable<KycStatusResult['decision']> {
  if (!isObject(value)) invalid();
  const details = value.details;
  const risk = value.risk;
  if ((details !== undefined && !isObject(details)) || (risk !== undefined && risk !== null && !isObject(risk))) invalid();
  const score = isObject(risk) ? risk.score : undefined;
  if (score !== undefined && score !== null && (typeof score !== 'number' || !Number.isFinite(score))) invalid();
  const label = isObject(details) ? details.label : undefined;
  return { type: decisionType(value.type), label: optionalEnum(label), riskScore: typeof score === 'number' ? score : null };
}

function checks(capabilities: unknown): KycStatusResult['checks'] {
  if (capabilities === undefined || capabilities === null) return [];
  if (!isObject(capabilities)) invalid();
  const result: KycStatusResult['checks'] = [];
  for (const [name, entries] of Object.entries(capabilities)) {
    if (!CAPABILITY_NAME.test(name) || !Array.isArray(entries)) invalid();
    for (const entry of entries) {
      if (!isObject(entry)) invalid();
      const { type, label } = decision(entry.decision);
      result.push({ name, decision: type, label });
    }
  }
  return result;
}

const executionPath = (input: KycStatusInput) =>
  `/api/v1/accounts/${encodeURIComponent(input.accountId)}/workflow-executions/${encodeURIComponent(input.workflowExecutionId)}`;

export const getStatusAction: VendorAction<KycStatusInput, KycStatusResult> = {
  toolName: 'kyc_check',
  action: 'get_status',
  description: 'Get the status and decision of a Jumio identity verification.',
  inputSchema: {
    type: 'object',
    properties: {
      accountId: idString('The Jumio account id'),
      workflowExecutionId: idString('The Jumio workflow execution id'),
    },
    required: ['accountId', 'workflowExecutionId'],
    additionalProperties: false,
  },
  defaultRisk: 'medium',
  costCents: 5,
  idempotent: true,
  describeResult:
    '{ accountId, workflowExecutionId, status: INITIATED | ACQUIRED | PROCESSED | SESSION_EXPIRED | TOKEN_EXPIRED, ' +
    'definitionKey: string | null, decision: { type: PASSED | REJECTED | WARNING | NOT_EXECUTED, label: string | null, ' +
    'riskScore: number | null } | null (null until PROCESSED), completedAt: ISO timestamp | null, ' +
    'checks: [{ name: capability e.g. liveness, decision: PASSED | REJECTED | WARNING | NOT_EXECUTED, label: string | null }] }',

  async execute(input: KycStatusInput, ctx: VendorContext): Promise<KycStatusResult> {
    const path = executionPath(input);
    const statusBody = await jumioRetrievalGet<unknown>(ctx, `${path}/status`);
    if (!isObject(statusBody) || !isObject(statusBody.workflowExecution)) invalid();
    const execution = statusBody.workflowExecution;
    const status = enumValue(execution.status);
    const definitionKey = execution.definitionKey;
    if (definitionKey !== undefined && definitionKey !== null && typeof definitionKey !== 'string') invalid();

    const result: KycStatusResult = {
      accountId: input.accountId,
      workflowExecutionId: input.workflowExecutionId,
      status,
      definitionKey: typeof definitionKey === 'string' ? definitionKey.slice(0, 64) : null,
      decision: null,
      completedAt: null,
      checks: [],
    };
    if (status !== 'PROCESSED') return result;

    const details = await jumioRetrievalGet<unknown>(ctx, path);
    if (!isObject(details)) invalid();
    result.decision = decision(details.decision);
    result.completedAt = timestamp(details.completedAt);
    result.checks = checks(details.capabilities);
    return result;
  },
};
