import { graphql } from '../gql';

/**
 * Typed documents several suites and helpers send (`npm run codegen` types them into
 * test/gql/). A suite's own documents stay in the suite; where operations/ has the
 * operation, its typed document from gql/ is used instead.
 */

/**
 * A JSON value the schema leaves untyped (a tool's input or result, a ledger event's
 * metadata) as the code that wrote it types it, e.g. OrderLookupResult of
 * src/vendors/shopify/order-lookup.action.ts.
 */
export const jsonAs = <T>(value: unknown): T => value as T;

/** What executeToolCall and executeApprovedToolCall answer the agent. */
graphql(`
  fragment CallAnswer on ToolCallResult {
    status toolCallId result
    error { code message }
    approvalRequestId replayed
  }
`);

export const START_AGENT_RUN = graphql(`
  mutation StartAgentRun($input: StartAgentRunInput!) {
    startAgentRun(input: $input) { id status driver allowedTools policyVersion }
  }
`);

export const EXECUTE_TOOL_CALL = graphql(`
  mutation ExecuteToolCall($input: ExecuteToolCallInput!) {
    executeToolCall(input: $input) { ...CallAnswer }
  }
`);

export const EXECUTE_APPROVED_TOOL_CALL = graphql(`
  mutation ExecuteApprovedToolCall($id: ID!) {
    executeApprovedToolCall(toolCallId: $id) { ...CallAnswer }
  }
`);

export const RESOLVE_APPROVAL = graphql(`
  mutation ResolveApproval($id: ID!, $decision: ApprovalDecision!, $reason: String) {
    resolveApproval(id: $id, decision: $decision, reason: $reason) { id status }
  }
`);

export const COMPLETE_RUN = graphql(`
  mutation CompleteRun($id: ID!) {
    completeAgentRun(runId: $id) { id status completedAt }
  }
`);

export const CREATE_SPECIALIST = graphql(`
  mutation CreateSpecialist($input: CreateSpecialistInput!) {
    createSpecialist(input: $input) { id name description systemPrompt }
  }
`);

export const ORG_SPECIALISTS = graphql(`
  query OrgSpecialists {
    viewer { org { id specialists { id name } } }
  }
`);

export const ORG_FEATURE_FLAGS = graphql(`
  query OrgFeatureFlags {
    viewer { org { id featureFlags { key enabled } } }
  }
`);

export const ORG_INTEGRATIONS = graphql(`
  query OrgIntegrations {
    viewer { org { id integrations { id integrationType keyVersion createdAt updatedAt } } }
  }
`);

export const SET_TOOL_PERMISSION = graphql(`
  mutation SetToolPermission($tool: String!, $action: String!, $enabled: Boolean!) {
    setToolPermission(toolName: $tool, action: $action, enabled: $enabled) { toolName action enabled }
  }
`);

export const BIND_TOOL = graphql(`
  mutation BindTool($input: BindToolInput!) {
    bindToolToSpecialist(input: $input) { specialistId toolName action bound }
  }
`);

export const PUT_CREDENTIAL = graphql(`
  mutation PutCredential($type: String!, $config: JSONObject!) {
    putIntegrationCredential(integrationType: $type, config: $config) {
      id integrationType keyVersion createdAt updatedAt
    }
  }
`);

/** Every field of a policy rule, as upsertPolicyRule answers and policyRules lists it. */
graphql(`
  fragment RuleFields on PolicyRule {
    id name position toolPattern actionPattern
    conditions { path op value }
    roles specialistId risk decision enabled
  }
`);

export const UPSERT_POLICY_RULE = graphql(`
  mutation UpsertPolicyRule($input: PolicyRuleInput!) {
    upsertPolicyRule(input: $input) { ...RuleFields }
  }
`);

export const DELETE_POLICY_RULE = graphql(`
  mutation DeletePolicyRule($id: ID!) {
    deletePolicyRule(id: $id)
  }
`);

export const SET_SHADOW_MODE = graphql(`
  mutation SetShadowMode($enabled: Boolean!) {
    setPolicyShadowMode(enabled: $enabled)
  }
`);
