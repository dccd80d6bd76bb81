/**
 * Demo data of the Jumio sandbox: one KYX account with three workflow executions, shaped
 * like the Retrieval API's "Get Workflow Details" answer (definitionKey 10013: ID and
 * identity verification + screening).
 */
export const JUMIO_DEMO_ACCOUNT_ID = 'f2b3a6d4-2c1e-4b7a-9d3f-5e8c1a0b7d21';

export const JUMIO_DEMO_EXECUTIONS = {
  /** PROCESSED, decision PASSED. */
  passed: '4a8e1f3c-9b2d-4c6e-8f1a-2d3b5c7e9a01',
  /** PROCESSED, decision REJECTED (digital copy of the ID). */
  rejected: '7c2d9e4f-1a3b-4d5e-9f6a-8b0c2d4e6f13',
  /** INITIATED: the user has not finished capturing. */
  initiated: 'b5e7f9a1-3c5d-4e7f-8a9b-0c1d2e3f4a25',
} as const;

export interface SandboxExecution {
  accountId: string;
  id: string;
  status: string;
  definitionKey: string;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  decision: Record<string, unknown> | null;
  capabilities: Record<string, Record<string, unknown>[]> | null;
}

/** The credentials (captured images) of the demo account that the capabilities read. */
const CREDENTIAL_IDS = {
  ID: '107da47e-894c-4e86-bb84-aa4d0d12ca5d',
  SELFIE: '749d7c8e-87ca-4f0a-b475-dddb0c5d09fa',
  FACEMAP: '0c5a2aa8-bfdd-44f1-8711-138d198309b2',
};
type Category = keyof typeof CREDENTIAL_IDS;

/** One capability result; `reads` names its credentials in the order Jumio lists them. */
function capability(id: string, reads: Category[], type: string, label: string, data?: object) {
  const credentials = reads.map((category) => ({ id: CREDENTIAL_IDS[category], category }));
  return { id, credentials, decision: { type, details: { label } }, ...(data ? { data } : {}) };
}

// Workflow 10013 runs each check on the same credentials every time; only the outcome varies.
const onId = (id: string, type: string, label: string, data?: object) => capability(id, ['ID'], type, label, data);
const imageCheck = (id: string, type: string, label: string) => capability(id, ['ID', 'SELFIE'], type, label);
const liveness = (id: string) => capability(id, ['FACEMAP', 'SELFIE'], 'PASSED', 'OK', { type: 'IPROOV_STANDARD' });
const similarity = (id: string, type: string, label: string) => capability(id, ['SELFIE', 'ID'], type, label, { similarity: label });

const passedCapabilities = {
  usability: [
    onId('e131f97b-5659-4031-891c-7218bd63baf4', 'PASSED', 'OK'),
    capability('b9d147cd-bd05-4497-9ba7-3abab6aba325', ['SELFIE'], 'PASSED', 'OK'),
  ],
  imageChecks: [imageCheck('1c8b989b-15c7-4f2f-a64e-cb3192283fb8', 'PASSED', 'OK')],
  extraction: [onId('9f16cb11-c219-49ac-ade9-28eda0af0cc9', 'PASSED', 'OK', { type: 'DRIVING_LICENSE', issuingCountry: 'USA' })],
  dataChecks: [onId('14944cd6-a81f-460b-b5dc-5932bf50c851', 'PASSED', 'OK')],
  liveness: [liveness('d84abaec-a116-41fe-a4cd-0a859cd51cc0')],
  similarity: [similarity('7883c1d7-b26a-4444-84cd-a61c455cda8e', 'PASSED', 'MATCH')],
  watchlistScreening: [onId('2a901c17-a182-45d6-9457-33370d252442', 'PASSED', 'OK')],
};

const rejectedCapabilities = {
  usability: [
    onId('5d1e7a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b', 'PASSED', 'OK'),
    capability('6e2f8b3c-4d5e-4f6a-9b7c-8d9e0f1a2b3c', ['SELFIE'], 'PASSED', 'OK'),
  ],
  imageChecks: [imageCheck('7f3a9c4d-5e6f-4a7b-8c8d-9e0f1a2b3c4d', 'REJECTED', 'DIGITAL_COPY')],
  extraction: [onId('8a4b0d5e-6f7a-4b8c-9d9e-0f1a2b3c4d5e', 'NOT_EXECUTED', 'PRECONDITION_NOT_FULFILLED', {})],
  dataChecks: [onId('9b5c1e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f', 'NOT_EXECUTED', 'PRECONDITION_NOT_FULFILLED')],
  liveness: [liveness('0c6d2f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a')],
  similarity: [similarity('1d7e3a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b', 'WARNING', 'NOT_POSSIBLE')],
};

export function seedExecutions(): SandboxExecution[] {
  return [
    {
      accountId: JUMIO_DEMO_ACCOUNT_ID,
      id: JUMIO_DEMO_EXECUTIONS.passed,
      status: 'PROCESSED',
      definitionKey: '10013',
      createdAt: '2025-03-24T11:32:57.345Z',
      startedAt: '2025-03-24T11:37:28.412Z',
      completedAt: '2025-03-24T11:37:34.253Z',
      decision: { type: 'PASSED', details: { label: 'PASSED' }, risk: { score: 12.5 } },
      capabilities: passedCapabilities,
    },
    {
      accountId: JUMIO_DEMO_ACCOUNT_ID,
      id: JUMIO_DEMO_EXECUTIONS.rejected,
      status: 'PROCESSED',
      definitionKey: '10013',
      createdAt: '2025-04-02T09:12:01.120Z',
      startedAt: '2025-04-02T09:15:44.871Z',
      completedAt: '2025-04-02T09:15:52.004Z',
      decision: { type: 'REJECTED', details: { label: 'DIGITAL_COPY' }, risk: { score: 100 } },
      capabilities: rejectedCapabilities,
    },
    {
      accountId: JUMIO_DEMO_ACCOUNT_ID,
      id: JUMIO_DEMO_EXECUTIONS.initiated,
      status: 'INITIATED',
      definitionKey: '10013',
      createdAt: '2025-05-10T16:40:10.500Z',
      startedAt: null,
      completedAt: null,
      decision: null,
      capabilities: null,
    },
  ];
}
