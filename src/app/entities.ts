import { ApiKey } from '../auth/api-key.entity';
import { IdentityBinding } from '../identity/identity-binding.entity';
import { OidcLogin } from '../identity/oidc-login.entity';
import { Person } from '../identity/person.entity';
import { PersonSession } from '../identity/person-session.entity';
import { ApprovalRequest } from '../approvals/approval-request.entity';
import { ApprovalVote } from '../approvals/approval-vote.entity';
import { IntegrationCredential } from '../credentials/integration-credential.entity';
import { FeatureFlag } from '../orgs/feature-flag.entity';
import { LedgerEvent } from '../ledger/ledger-event.entity';
import { LedgerHead } from '../ledger/ledger-head.entity';
import { Org } from '../orgs/org.entity';
import { PolicyDecision } from '../policy/policy-decision.entity';
import { PolicyRule } from '../policy/policy-rule.entity';
import { PolicyReplayRecord } from '../policy/policy-replay-record.entity';
import { CedarPolicy } from '../policy/cedar-policy.entity';
import { RunMessage } from '../runs/run-message.entity';
import { AgentRun } from '../runs/agent-run.entity';
import { Specialist } from '../orgs/specialist.entity';
import { ToolCall } from '../gateway/tool-call.entity';
import { ToolDefinition } from '../catalog/tool-definition.entity';
import { ToolPermission } from '../catalog/tool-permission.entity';
import { ToolSpecialistBinding } from '../catalog/tool-specialist-binding.entity';
import { ToolgateNode } from '../recovery/node.entity';
import { UpstreamMcpServer } from '../upstream/upstream-server.entity';
import { WebhookEndpoint } from '../webhooks/webhook-endpoint.entity';
import { WebhookDelivery } from '../webhooks/webhook-delivery.entity';
import { WebhookAttempt } from '../webhooks/webhook-attempt.entity';

/** Every entity of the domain model, registered with the ORM in one place: the app's list, which it passes to initOrm (src/db/ knows no feature). */
export const ENTITIES = [
  Org,
  Specialist,
  ApiKey,
  IdentityBinding,
  Person,
  PersonSession,
  OidcLogin,
  FeatureFlag,
  ToolDefinition,
  ToolPermission,
  ToolSpecialistBinding,
  IntegrationCredential,
  AgentRun,
  RunMessage,
  ToolCall,
  PolicyRule,
  PolicyReplayRecord,
  CedarPolicy,
  PolicyDecision,
  ApprovalRequest,
  ApprovalVote,
  LedgerEvent,
  LedgerHead,
  ToolgateNode,
  UpstreamMcpServer,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
];
