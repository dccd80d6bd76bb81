/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query AdminLedger($after: String, $type: String) {\n    ledgerEvents(first: 100, after: $after, filter: {type: $type}) {\n      edges { node { id sequence type resourceId actorRole metadata prevHash hash createdAt } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n": typeof types.AdminLedgerDocument,
    "\n  query CredentialType {\n    __type(name: \"IntegrationCredential\") { fields { name } }\n  }\n": typeof types.CredentialTypeDocument,
    "\n  query SchemaFields {\n    __schema { types { name fields { name } } }\n  }\n": typeof types.SchemaFieldsDocument,
    "\n  query SchemaRoot {\n    __schema { queryType { name } }\n  }\n": typeof types.SchemaRootDocument,
    "\n  query CrossOrgRun($id: ID!) {\n    run(id: $id) { id status }\n  }\n": typeof types.CrossOrgRunDocument,
    "\n  query CrossOrgToolCall($id: ID!) {\n    toolCall(id: $id) { id status }\n  }\n": typeof types.CrossOrgToolCallDocument,
    "\n  query CrossOrgRuns($filter: RunFilter, $first: Int) {\n    runs(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n": typeof types.CrossOrgRunsDocument,
    "\n  query CrossOrgToolCalls($filter: ToolCallFilter, $first: Int) {\n    toolCalls(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n": typeof types.CrossOrgToolCallsDocument,
    "\n  query CrossOrgApprovals($filter: ApprovalRequestFilter, $first: Int) {\n    approvalRequests(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n": typeof types.CrossOrgApprovalsDocument,
    "\n  query CrossOrgDecisions($filter: PolicyDecisionFilter, $first: Int) {\n    policyDecisions(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n": typeof types.CrossOrgDecisionsDocument,
    "\n  query CrossOrgLedger($filter: LedgerEventFilter, $first: Int, $after: String) {\n    ledgerEvents(filter: $filter, first: $first, after: $after) { totalCount edges { node { id runId resourceId } } }\n  }\n": typeof types.CrossOrgLedgerDocument,
    "\n  query CrossOrgRunRelations($id: ID!) {\n    run(id: $id) {\n      id\n      specialist { id }\n      toolCalls {\n        id\n        run { id }\n        policyDecision { id }\n        approvalRequest { id toolCall { id } }\n        ledgerEvents { id resourceId }\n      }\n      ledgerEvents { resourceId }\n    }\n  }\n": typeof types.CrossOrgRunRelationsDocument,
    "\n    mutation CrossOrgBind($specialistId: ID!) {\n      bindToolToSpecialist(\n  input: {specialistId: $specialistId, toolName: \"order_lookup\", action: \"lookup\"}\n) {\n        specialistId bound\n      }\n    }\n  ": typeof types.CrossOrgBindDocument,
    "\n  query ToolCallsByTool($filter: ToolCallFilter) {\n    toolCalls(filter: $filter, first: 5) { totalCount }\n  }\n": typeof types.ToolCallsByToolDocument,
    "\n    query OutageViewer {\n      viewer { role org { id name } }\n    }\n  ": typeof types.OutageViewerDocument,
    "\n    mutation OutageFlag($key: String!) {\n      setFeatureFlag(key: $key, enabled: true) { key enabled }\n    }\n  ": typeof types.OutageFlagDocument,
    "\n  fragment Page on PageInfo {\n    hasNextPage hasPreviousPage startCursor endCursor\n  }\n": typeof types.PageFragmentDoc,
    "\n  query ReadRuns($first: Int, $after: String, $filter: RunFilter) {\n    runs(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id status specialistId createdAt } }\n    }\n  }\n": typeof types.ReadRunsDocument,
    "\n  query ReadToolCalls($first: Int, $after: String, $filter: ToolCallFilter) {\n    toolCalls(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id runId toolName status } }\n    }\n  }\n": typeof types.ReadToolCallsDocument,
    "\n  query ReadApprovals($first: Int, $after: String, $filter: ApprovalRequestFilter) {\n    approvalRequests(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id kind status runId toolCall { id } } }\n    }\n  }\n": typeof types.ReadApprovalsDocument,
    "\n  query ReadLedger($first: Int, $after: String, $filter: LedgerEventFilter) {\n    ledgerEvents(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id sequence type runId resourceId prevHash hash } }\n    }\n  }\n": typeof types.ReadLedgerDocument,
    "\n  query ReadDecisions($first: Int, $after: String, $filter: PolicyDecisionFilter) {\n    policyDecisions(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id runId outcome } }\n    }\n  }\n": typeof types.ReadDecisionsDocument,
    "\n  query ReadRunRelations($id: ID!) {\n    run(id: $id) {\n      id status\n      specialist { id name }\n      toolCalls { id toolName action status }\n      ledgerEvents { type runId resourceId }\n    }\n  }\n": typeof types.ReadRunRelationsDocument,
    "\n  query ReadToolCallRelations($id: ID!) {\n    toolCall(id: $id) {\n      id\n      policyDecision { id outcome }\n      approvalRequest { id kind status toolCallId }\n      ledgerEvents { type resourceId }\n      run { id }\n    }\n  }\n": typeof types.ReadToolCallRelationsDocument,
    "\n  fragment RunRelations on AgentRun {\n    id\n    toolCalls { id policyDecision { id } approvalRequest { id } }\n  }\n": typeof types.RunRelationsFragmentDoc,
    "\n  query NestedRuns {\n    runs(first: 50) { edges { node { ...RunRelations } } }\n  }\n": typeof types.NestedRunsDocument,
    "\n  query NestedRunsPage($after: String) {\n    runs(first: 5, after: $after) { pageInfo { endCursor } edges { node { ...RunRelations } } }\n  }\n": typeof types.NestedRunsPageDocument,
    "\n  query SocketViewer {\n    viewer { org { id } role }\n  }\n": typeof types.SocketViewerDocument,
    "\n  mutation ResolveWithEdits($id: ID!, $decision: ApprovalDecision!, $reason: String, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason, editedParams: $editedParams) {\n      id status kind resolvedBy reason edited editedParams editedBy\n    }\n  }\n": typeof types.ResolveWithEditsDocument,
    "\n  mutation ExecuteApprovedEdited($id: ID!) {\n    executeApprovedToolCall(toolCallId: $id) { status toolCallId result error { code message } approvalRequestId replayed editedParams }\n  }\n": typeof types.ExecuteApprovedEditedDocument,
    "\n  query EditedCall($id: ID!) {\n    toolCall(id: $id) {\n      id status input editedInput riskLevel\n      policyDecision { outcome risk }\n      approvalRequest { id status edited editedParams editedBy }\n    }\n  }\n": typeof types.EditedCallDocument,
    "\n  mutation DecideApproval($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) { id status kind resolvedBy reason resolvedAt }\n  }\n": typeof types.DecideApprovalDocument,
    "\n  query ApprovalCount {\n    approvalRequests { totalCount }\n  }\n": typeof types.ApprovalCountDocument,
    "\n  query RunApprovals($id: ID!) {\n    run(id: $id) { status pendingApprovalCount }\n  }\n": typeof types.RunApprovalsDocument,
    "\n  query ExpertQueue {\n    approvalRequests(filter: {status: pending, kind: expert}, first: 100) {\n      edges { node { id status kind toolCall { id status } } }\n    }\n  }\n": typeof types.ExpertQueueDocument,
    "\n  query ExecutorToolCall($id: ID!) {\n    toolCall(id: $id) {\n      status errorCode errorText vendorStatusCode retryCount durationMs costCents\n      ledgerEvents { type metadata }\n    }\n  }\n": typeof types.ExecutorToolCallDocument,
    "\n  query RunOutcomes($id: ID!) {\n    run(id: $id) { status errorCode toolCalls { status errorCode } ledgerEvents { type } }\n  }\n": typeof types.RunOutcomesDocument,
    "\n  query RunCost($id: ID!) {\n    run(id: $id) { toolCostCents }\n  }\n": typeof types.RunCostDocument,
    "\n  query GatewayToolCall($id: ID!) {\n    toolCall(id: $id) {\n      id runId toolName action correlationId status errorCode errorText riskLevel reviewRequired input output durationMs\n      costCents retryCount vendorStatusCode\n      ledgerEvents { type actorRole resourceId runId metadata }\n      policyDecision { outcome shadowOutcome risk matchedRuleId policyVersion callerRole reason toolName action runId }\n      approvalRequest { id kind status }\n    }\n  }\n": typeof types.GatewayToolCallDocument,
    "\n  query GatewayRun($id: ID!) {\n    run(id: $id) {\n      id status allowedTools policyVersion pendingApprovalCount toolCostCents\n      toolCalls { id status costCents }\n      ledgerEvents { type resourceId metadata }\n    }\n  }\n": typeof types.GatewayRunDocument,
    "\n  query GatewayOrgPolicy {\n    viewer { org { policyVersion policyShadowMode } }\n  }\n": typeof types.GatewayOrgPolicyDocument,
    "\n  query PolicyRules {\n    policyRules { ...RuleFields }\n  }\n": typeof types.PolicyRulesDocument,
    "\n  query PolicyChanges {\n    ledgerEvents(first: 100, filter: {type: \"policy.changed\"}) { edges { node { type resourceId actorRole metadata } } }\n  }\n": typeof types.PolicyChangesDocument,
    "\n  query PolicyRuleOrder {\n    policyRules { id name position enabled }\n  }\n": typeof types.PolicyRuleOrderDocument,
    "\n  mutation PersonResolves($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) {\n      id\n      status\n      resolvedBy\n      resolvedByName\n      resolvedByPerson { issuer subject name }\n    }\n  }\n": typeof types.PersonResolvesDocument,
    "\n  query PersonViewer {\n    viewer { role apiKeyId org { id } person { issuer subject name } }\n  }\n": typeof types.PersonViewerDocument,
    "\n  query VerifyLedger {\n    verifyLedger { ok eventsChecked firstBadSequence firstBadEventId problem }\n  }\n": typeof types.VerifyLedgerDocument,
    "\n  mutation McpApproveEdited($id: ID!, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: APPROVE, editedParams: $editedParams) { id status edited }\n  }\n": typeof types.McpApproveEditedDocument,
    "\n  fragment HistoryRuleFields on PolicyRule {\n    id name history { kind tool action scope customerPath paramPath windowSeconds limit }\n  }\n": typeof types.HistoryRuleFieldsFragmentDoc,
    "\n  mutation UpsertHistoryRule($input: PolicyRuleInput!) {\n    upsertPolicyRule(input: $input) { ...HistoryRuleFields }\n  }\n": typeof types.UpsertHistoryRuleDocument,
    "\n  query HistoryRules {\n    policyRules { id }\n  }\n": typeof types.HistoryRulesDocument,
    "\n  mutation DeleteHistoryRule($id: ID!) {\n    deletePolicyRule(id: $id)\n  }\n": typeof types.DeleteHistoryRuleDocument,
    "\n  subscription RunEvents($runId: ID!, $after: String) {\n    runEvents(runId: $runId, afterSequence: $after) { sequence type runId resourceId metadata createdAt }\n  }\n": typeof types.RunEventsDocument,
    "\n  subscription ToolCallChanges($runId: ID, $after: String) {\n    toolCallStatusChanged(runId: $runId, afterSequence: $after) {\n      sequence status\n      toolCall { id runId toolName action status input output errorCode }\n    }\n  }\n": typeof types.ToolCallChangesDocument,
    "\n  subscription ApprovalChanges($kind: ApprovalKind, $after: String) {\n    approvalRequests(kind: $kind, afterSequence: $after) {\n      sequence change\n      approvalRequest { id kind status toolCallId runId resolvedBy }\n    }\n  }\n": typeof types.ApprovalChangesDocument,
    "\n  subscription RunTokens($runId: ID!, $after: String) {\n    runTokens(runId: $runId, afterOffset: $after) { runId offset text }\n  }\n": typeof types.RunTokensDocument,
    "\n  subscription RetractingTokens($runId: ID!, $after: String) {\n    runTokens(runId: $runId, afterOffset: $after) { runId offset text retractFrom }\n  }\n": typeof types.RetractingTokensDocument,
    "\n  query RunCacheCost($id: ID!) {\n    run(id: $id) { status inputTokens outputTokens cacheCreationInputTokens cacheReadInputTokens llmCostUsd }\n  }\n": typeof types.RunCacheCostDocument,
    "\n  query RunStatusPoll($id: ID!) {\n    run(id: $id) { id status }\n  }\n": typeof types.RunStatusPollDocument,
    "\n  query RunDetail($id: ID!) {\n    run(id: $id) {\n      id status driver reply stopReason replyTruncated pendingApprovalCount inputTokens outputTokens llmCostUsd errorCode errorMessage\n      allowedTools\n      messages {\n        position role content text\n        blocks {\n          __typename\n          ... on TextBlock { text }\n          ... on ToolUseBlock { toolUseId name tool input toolCallId status }\n          ... on ToolResultBlock { toolUseId isError pending content toolCallId status }\n        }\n      }\n      toolCalls {\n        id toolName action status errorCode errorText vendorStatusCode input output riskLevel\n        policyDecision { id outcome risk }\n        approvalRequest { id status kind }\n      }\n      ledgerEvents { type resourceId metadata }\n    }\n  }\n": typeof types.RunDetailDocument,
    "\n  mutation PostMessage($runId: ID!, $text: String!) {\n    postMessage(runId: $runId, text: $text) { id status }\n  }\n": typeof types.PostMessageDocument,
    "\n  mutation CancelRun($runId: ID!) {\n    cancelRun(runId: $runId) { id status pendingApprovalCount }\n  }\n": typeof types.CancelRunDocument,
    "\n  mutation RuntimeApproveEdited($id: ID!, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: APPROVE, editedParams: $editedParams) { id status edited editedParams }\n  }\n": typeof types.RuntimeApproveEditedDocument,
    "\n  mutation CreateThinkingSpecialist($input: CreateSpecialistInput!) {\n    createSpecialist(input: $input) { id thinkingBudgetTokens }\n  }\n": typeof types.CreateThinkingSpecialistDocument,
    "\n  mutation SetSpecialistThinking($id: ID!, $budget: Int) {\n    setSpecialistThinking(specialistId: $id, budgetTokens: $budget) { id thinkingBudgetTokens }\n  }\n": typeof types.SetSpecialistThinkingDocument,
    "\n  query RunThinking($id: ID!) {\n    run(id: $id) {\n      thinkingBudgetTokens outputTokens\n      messages { content blocks { __typename ... on ThinkingBlock { redacted } } }\n    }\n  }\n": typeof types.RunThinkingDocument,
    "\n  fragment CallAnswer on ToolCallResult {\n    status toolCallId result\n    error { code message }\n    approvalRequestId replayed\n  }\n": typeof types.CallAnswerFragmentDoc,
    "\n  mutation StartAgentRun($input: StartAgentRunInput!) {\n    startAgentRun(input: $input) { id status driver allowedTools policyVersion }\n  }\n": typeof types.StartAgentRunDocument,
    "\n  mutation ExecuteToolCall($input: ExecuteToolCallInput!) {\n    executeToolCall(input: $input) { ...CallAnswer }\n  }\n": typeof types.ExecuteToolCallDocument,
    "\n  mutation ExecuteApprovedToolCall($id: ID!) {\n    executeApprovedToolCall(toolCallId: $id) { ...CallAnswer }\n  }\n": typeof types.ExecuteApprovedToolCallDocument,
    "\n  mutation ResolveApproval($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) { id status }\n  }\n": typeof types.ResolveApprovalDocument,
    "\n  mutation CompleteRun($id: ID!) {\n    completeAgentRun(runId: $id) { id status completedAt }\n  }\n": typeof types.CompleteRunDocument,
    "\n  mutation CreateSpecialist($input: CreateSpecialistInput!) {\n    createSpecialist(input: $input) { id name description systemPrompt }\n  }\n": typeof types.CreateSpecialistDocument,
    "\n  query OrgSpecialists {\n    viewer { org { id specialists { id name } } }\n  }\n": typeof types.OrgSpecialistsDocument,
    "\n  query OrgFeatureFlags {\n    viewer { org { id featureFlags { key enabled } } }\n  }\n": typeof types.OrgFeatureFlagsDocument,
    "\n  query OrgIntegrations {\n    viewer { org { id integrations { id integrationType keyVersion createdAt updatedAt } } }\n  }\n": typeof types.OrgIntegrationsDocument,
    "\n  mutation SetToolPermission($tool: String!, $action: String!, $enabled: Boolean!) {\n    setToolPermission(toolName: $tool, action: $action, enabled: $enabled) { toolName action enabled }\n  }\n": typeof types.SetToolPermissionDocument,
    "\n  mutation BindTool($input: BindToolInput!) {\n    bindToolToSpecialist(input: $input) { specialistId toolName action bound }\n  }\n": typeof types.BindToolDocument,
    "\n  mutation PutCredential($type: String!, $config: JSONObject!) {\n    putIntegrationCredential(integrationType: $type, config: $config) {\n      id integrationType keyVersion createdAt updatedAt\n    }\n  }\n": typeof types.PutCredentialDocument,
    "\n  fragment RuleFields on PolicyRule {\n    id name position toolPattern actionPattern\n    conditions { path op value }\n    roles specialistId risk decision enabled\n  }\n": typeof types.RuleFieldsFragmentDoc,
    "\n  mutation UpsertPolicyRule($input: PolicyRuleInput!) {\n    upsertPolicyRule(input: $input) { ...RuleFields }\n  }\n": typeof types.UpsertPolicyRuleDocument,
    "\n  mutation DeletePolicyRule($id: ID!) {\n    deletePolicyRule(id: $id)\n  }\n": typeof types.DeletePolicyRuleDocument,
    "\n  mutation SetShadowMode($enabled: Boolean!) {\n    setPolicyShadowMode(enabled: $enabled)\n  }\n": typeof types.SetShadowModeDocument,
    "\n  fragment McpServerFields on McpServer {\n    id name url transport defaultRisk defaultIdempotent defaultCostCents hasCredential tools createdAt lastImportedAt\n    drift { tool fields pinnedHash pinnedAt }\n  }\n": typeof types.McpServerFieldsFragmentDoc,
    "\n  mutation RegisterMcpServer($input: RegisterMcpServerInput!) {\n    registerMcpServer(input: $input) { ...McpServerFields }\n  }\n": typeof types.RegisterMcpServerDocument,
    "\n  mutation ImportMcpTools($id: ID!) {\n    importMcpServerTools(serverId: $id) {\n      server { ...McpServerFields }\n      added removed schemaChanged descriptionChanged unchanged\n      skipped { name reason }\n      drifted { tool fields }\n    }\n  }\n": typeof types.ImportMcpToolsDocument,
    "\n  query McpServers {\n    mcpServers { ...McpServerFields }\n  }\n": typeof types.McpServersDocument,
    "\n  query UpstreamCatalog {\n    toolCatalog { name toolName action vendor defaultRisk idempotent inputSchema costCents enabled }\n  }\n": typeof types.UpstreamCatalogDocument,
    "\n  query UpstreamRunManifest($id: ID!) {\n    run(id: $id) { id status allowedTools }\n  }\n": typeof types.UpstreamRunManifestDocument,
    "\n  query UpstreamToolCall($id: ID!) {\n    toolCall(id: $id) {\n      toolName action status errorCode errorText input output retryCount durationMs costCents vendorStatusCode\n      ledgerEvents { type metadata }\n    }\n  }\n": typeof types.UpstreamToolCallDocument,
    "\n  query FullCatalog {\n    toolCatalog { name toolName action vendor description defaultRisk idempotent inputSchema costCents enabled }\n  }\n": typeof types.FullCatalogDocument,
    "\n  query CallDecision($id: ID!) {\n    toolCall(id: $id) { reviewRequired policyDecision { outcome risk matchedRuleId reason } }\n  }\n": typeof types.CallDecisionDocument,
};
const documents: Documents = {
    "\n  query AdminLedger($after: String, $type: String) {\n    ledgerEvents(first: 100, after: $after, filter: {type: $type}) {\n      edges { node { id sequence type resourceId actorRole metadata prevHash hash createdAt } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n": types.AdminLedgerDocument,
    "\n  query CredentialType {\n    __type(name: \"IntegrationCredential\") { fields { name } }\n  }\n": types.CredentialTypeDocument,
    "\n  query SchemaFields {\n    __schema { types { name fields { name } } }\n  }\n": types.SchemaFieldsDocument,
    "\n  query SchemaRoot {\n    __schema { queryType { name } }\n  }\n": types.SchemaRootDocument,
    "\n  query CrossOrgRun($id: ID!) {\n    run(id: $id) { id status }\n  }\n": types.CrossOrgRunDocument,
    "\n  query CrossOrgToolCall($id: ID!) {\n    toolCall(id: $id) { id status }\n  }\n": types.CrossOrgToolCallDocument,
    "\n  query CrossOrgRuns($filter: RunFilter, $first: Int) {\n    runs(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n": types.CrossOrgRunsDocument,
    "\n  query CrossOrgToolCalls($filter: ToolCallFilter, $first: Int) {\n    toolCalls(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n": types.CrossOrgToolCallsDocument,
    "\n  query CrossOrgApprovals($filter: ApprovalRequestFilter, $first: Int) {\n    approvalRequests(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n": types.CrossOrgApprovalsDocument,
    "\n  query CrossOrgDecisions($filter: PolicyDecisionFilter, $first: Int) {\n    policyDecisions(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n": types.CrossOrgDecisionsDocument,
    "\n  query CrossOrgLedger($filter: LedgerEventFilter, $first: Int, $after: String) {\n    ledgerEvents(filter: $filter, first: $first, after: $after) { totalCount edges { node { id runId resourceId } } }\n  }\n": types.CrossOrgLedgerDocument,
    "\n  query CrossOrgRunRelations($id: ID!) {\n    run(id: $id) {\n      id\n      specialist { id }\n      toolCalls {\n        id\n        run { id }\n        policyDecision { id }\n        approvalRequest { id toolCall { id } }\n        ledgerEvents { id resourceId }\n      }\n      ledgerEvents { resourceId }\n    }\n  }\n": types.CrossOrgRunRelationsDocument,
    "\n    mutation CrossOrgBind($specialistId: ID!) {\n      bindToolToSpecialist(\n  input: {specialistId: $specialistId, toolName: \"order_lookup\", action: \"lookup\"}\n) {\n        specialistId bound\n      }\n    }\n  ": types.CrossOrgBindDocument,
    "\n  query ToolCallsByTool($filter: ToolCallFilter) {\n    toolCalls(filter: $filter, first: 5) { totalCount }\n  }\n": types.ToolCallsByToolDocument,
    "\n    query OutageViewer {\n      viewer { role org { id name } }\n    }\n  ": types.OutageViewerDocument,
    "\n    mutation OutageFlag($key: String!) {\n      setFeatureFlag(key: $key, enabled: true) { key enabled }\n    }\n  ": types.OutageFlagDocument,
    "\n  fragment Page on PageInfo {\n    hasNextPage hasPreviousPage startCursor endCursor\n  }\n": types.PageFragmentDoc,
    "\n  query ReadRuns($first: Int, $after: String, $filter: RunFilter) {\n    runs(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id status specialistId createdAt } }\n    }\n  }\n": types.ReadRunsDocument,
    "\n  query ReadToolCalls($first: Int, $after: String, $filter: ToolCallFilter) {\n    toolCalls(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id runId toolName status } }\n    }\n  }\n": types.ReadToolCallsDocument,
    "\n  query ReadApprovals($first: Int, $after: String, $filter: ApprovalRequestFilter) {\n    approvalRequests(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id kind status runId toolCall { id } } }\n    }\n  }\n": types.ReadApprovalsDocument,
    "\n  query ReadLedger($first: Int, $after: String, $filter: LedgerEventFilter) {\n    ledgerEvents(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id sequence type runId resourceId prevHash hash } }\n    }\n  }\n": types.ReadLedgerDocument,
    "\n  query ReadDecisions($first: Int, $after: String, $filter: PolicyDecisionFilter) {\n    policyDecisions(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id runId outcome } }\n    }\n  }\n": types.ReadDecisionsDocument,
    "\n  query ReadRunRelations($id: ID!) {\n    run(id: $id) {\n      id status\n      specialist { id name }\n      toolCalls { id toolName action status }\n      ledgerEvents { type runId resourceId }\n    }\n  }\n": types.ReadRunRelationsDocument,
    "\n  query ReadToolCallRelations($id: ID!) {\n    toolCall(id: $id) {\n      id\n      policyDecision { id outcome }\n      approvalRequest { id kind status toolCallId }\n      ledgerEvents { type resourceId }\n      run { id }\n    }\n  }\n": types.ReadToolCallRelationsDocument,
    "\n  fragment RunRelations on AgentRun {\n    id\n    toolCalls { id policyDecision { id } approvalRequest { id } }\n  }\n": types.RunRelationsFragmentDoc,
    "\n  query NestedRuns {\n    runs(first: 50) { edges { node { ...RunRelations } } }\n  }\n": types.NestedRunsDocument,
    "\n  query NestedRunsPage($after: String) {\n    runs(first: 5, after: $after) { pageInfo { endCursor } edges { node { ...RunRelations } } }\n  }\n": types.NestedRunsPageDocument,
    "\n  query SocketViewer {\n    viewer { org { id } role }\n  }\n": types.SocketViewerDocument,
    "\n  mutation ResolveWithEdits($id: ID!, $decision: ApprovalDecision!, $reason: String, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason, editedParams: $editedParams) {\n      id status kind resolvedBy reason edited editedParams editedBy\n    }\n  }\n": types.ResolveWithEditsDocument,
    "\n  mutation ExecuteApprovedEdited($id: ID!) {\n    executeApprovedToolCall(toolCallId: $id) { status toolCallId result error { code message } approvalRequestId replayed editedParams }\n  }\n": types.ExecuteApprovedEditedDocument,
    "\n  query EditedCall($id: ID!) {\n    toolCall(id: $id) {\n      id status input editedInput riskLevel\n      policyDecision { outcome risk }\n      approvalRequest { id status edited editedParams editedBy }\n    }\n  }\n": types.EditedCallDocument,
    "\n  mutation DecideApproval($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) { id status kind resolvedBy reason resolvedAt }\n  }\n": types.DecideApprovalDocument,
    "\n  query ApprovalCount {\n    approvalRequests { totalCount }\n  }\n": types.ApprovalCountDocument,
    "\n  query RunApprovals($id: ID!) {\n    run(id: $id) { status pendingApprovalCount }\n  }\n": types.RunApprovalsDocument,
    "\n  query ExpertQueue {\n    approvalRequests(filter: {status: pending, kind: expert}, first: 100) {\n      edges { node { id status kind toolCall { id status } } }\n    }\n  }\n": types.ExpertQueueDocument,
    "\n  query ExecutorToolCall($id: ID!) {\n    toolCall(id: $id) {\n      status errorCode errorText vendorStatusCode retryCount durationMs costCents\n      ledgerEvents { type metadata }\n    }\n  }\n": types.ExecutorToolCallDocument,
    "\n  query RunOutcomes($id: ID!) {\n    run(id: $id) { status errorCode toolCalls { status errorCode } ledgerEvents { type } }\n  }\n": types.RunOutcomesDocument,
    "\n  query RunCost($id: ID!) {\n    run(id: $id) { toolCostCents }\n  }\n": types.RunCostDocument,
    "\n  query GatewayToolCall($id: ID!) {\n    toolCall(id: $id) {\n      id runId toolName action correlationId status errorCode errorText riskLevel reviewRequired input output durationMs\n      costCents retryCount vendorStatusCode\n      ledgerEvents { type actorRole resourceId runId metadata }\n      policyDecision { outcome shadowOutcome risk matchedRuleId policyVersion callerRole reason toolName action runId }\n      approvalRequest { id kind status }\n    }\n  }\n": types.GatewayToolCallDocument,
    "\n  query GatewayRun($id: ID!) {\n    run(id: $id) {\n      id status allowedTools policyVersion pendingApprovalCount toolCostCents\n      toolCalls { id status costCents }\n      ledgerEvents { type resourceId metadata }\n    }\n  }\n": types.GatewayRunDocument,
    "\n  query GatewayOrgPolicy {\n    viewer { org { policyVersion policyShadowMode } }\n  }\n": types.GatewayOrgPolicyDocument,
    "\n  query PolicyRules {\n    policyRules { ...RuleFields }\n  }\n": types.PolicyRulesDocument,
    "\n  query PolicyChanges {\n    ledgerEvents(first: 100, filter: {type: \"policy.changed\"}) { edges { node { type resourceId actorRole metadata } } }\n  }\n": types.PolicyChangesDocument,
    "\n  query PolicyRuleOrder {\n    policyRules { id name position enabled }\n  }\n": types.PolicyRuleOrderDocument,
    "\n  mutation PersonResolves($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) {\n      id\n      status\n      resolvedBy\n      resolvedByName\n      resolvedByPerson { issuer subject name }\n    }\n  }\n": types.PersonResolvesDocument,
    "\n  query PersonViewer {\n    viewer { role apiKeyId org { id } person { issuer subject name } }\n  }\n": types.PersonViewerDocument,
    "\n  query VerifyLedger {\n    verifyLedger { ok eventsChecked firstBadSequence firstBadEventId problem }\n  }\n": types.VerifyLedgerDocument,
    "\n  mutation McpApproveEdited($id: ID!, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: APPROVE, editedParams: $editedParams) { id status edited }\n  }\n": types.McpApproveEditedDocument,
    "\n  fragment HistoryRuleFields on PolicyRule {\n    id name history { kind tool action scope customerPath paramPath windowSeconds limit }\n  }\n": types.HistoryRuleFieldsFragmentDoc,
    "\n  mutation UpsertHistoryRule($input: PolicyRuleInput!) {\n    upsertPolicyRule(input: $input) { ...HistoryRuleFields }\n  }\n": types.UpsertHistoryRuleDocument,
    "\n  query HistoryRules {\n    policyRules { id }\n  }\n": types.HistoryRulesDocument,
    "\n  mutation DeleteHistoryRule($id: ID!) {\n    deletePolicyRule(id: $id)\n  }\n": types.DeleteHistoryRuleDocument,
    "\n  subscription RunEvents($runId: ID!, $after: String) {\n    runEvents(runId: $runId, afterSequence: $after) { sequence type runId resourceId metadata createdAt }\n  }\n": types.RunEventsDocument,
    "\n  subscription ToolCallChanges($runId: ID, $after: String) {\n    toolCallStatusChanged(runId: $runId, afterSequence: $after) {\n      sequence status\n      toolCall { id runId toolName action status input output errorCode }\n    }\n  }\n": types.ToolCallChangesDocument,
    "\n  subscription ApprovalChanges($kind: ApprovalKind, $after: String) {\n    approvalRequests(kind: $kind, afterSequence: $after) {\n      sequence change\n      approvalRequest { id kind status toolCallId runId resolvedBy }\n    }\n  }\n": types.ApprovalChangesDocument,
    "\n  subscription RunTokens($runId: ID!, $after: String) {\n    runTokens(runId: $runId, afterOffset: $after) { runId offset text }\n  }\n": types.RunTokensDocument,
    "\n  subscription RetractingTokens($runId: ID!, $after: String) {\n    runTokens(runId: $runId, afterOffset: $after) { runId offset text retractFrom }\n  }\n": types.RetractingTokensDocument,
    "\n  query RunCacheCost($id: ID!) {\n    run(id: $id) { status inputTokens outputTokens cacheCreationInputTokens cacheReadInputTokens llmCostUsd }\n  }\n": types.RunCacheCostDocument,
    "\n  query RunStatusPoll($id: ID!) {\n    run(id: $id) { id status }\n  }\n": types.RunStatusPollDocument,
    "\n  query RunDetail($id: ID!) {\n    run(id: $id) {\n      id status driver reply stopReason replyTruncated pendingApprovalCount inputTokens outputTokens llmCostUsd errorCode errorMessage\n      allowedTools\n      messages {\n        position role content text\n        blocks {\n          __typename\n          ... on TextBlock { text }\n          ... on ToolUseBlock { toolUseId name tool input toolCallId status }\n          ... on ToolResultBlock { toolUseId isError pending content toolCallId status }\n        }\n      }\n      toolCalls {\n        id toolName action status errorCode errorText vendorStatusCode input output riskLevel\n        policyDecision { id outcome risk }\n        approvalRequest { id status kind }\n      }\n      ledgerEvents { type resourceId metadata }\n    }\n  }\n": types.RunDetailDocument,
    "\n  mutation PostMessage($runId: ID!, $text: String!) {\n    postMessage(runId: $runId, text: $text) { id status }\n  }\n": types.PostMessageDocument,
    "\n  mutation CancelRun($runId: ID!) {\n    cancelRun(runId: $runId) { id status pendingApprovalCount }\n  }\n": types.CancelRunDocument,
    "\n  mutation RuntimeApproveEdited($id: ID!, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: APPROVE, editedParams: $editedParams) { id status edited editedParams }\n  }\n": types.RuntimeApproveEditedDocument,
    "\n  mutation CreateThinkingSpecialist($input: CreateSpecialistInput!) {\n    createSpecialist(input: $input) { id thinkingBudgetTokens }\n  }\n": types.CreateThinkingSpecialistDocument,
    "\n  mutation SetSpecialistThinking($id: ID!, $budget: Int) {\n    setSpecialistThinking(specialistId: $id, budgetTokens: $budget) { id thinkingBudgetTokens }\n  }\n": types.SetSpecialistThinkingDocument,
    "\n  query RunThinking($id: ID!) {\n    run(id: $id) {\n      thinkingBudgetTokens outputTokens\n      messages { content blocks { __typename ... on ThinkingBlock { redacted } } }\n    }\n  }\n": types.RunThinkingDocument,
    "\n  fragment CallAnswer on ToolCallResult {\n    status toolCallId result\n    error { code message }\n    approvalRequestId replayed\n  }\n": types.CallAnswerFragmentDoc,
    "\n  mutation StartAgentRun($input: StartAgentRunInput!) {\n    startAgentRun(input: $input) { id status driver allowedTools policyVersion }\n  }\n": types.StartAgentRunDocument,
    "\n  mutation ExecuteToolCall($input: ExecuteToolCallInput!) {\n    executeToolCall(input: $input) { ...CallAnswer }\n  }\n": types.ExecuteToolCallDocument,
    "\n  mutation ExecuteApprovedToolCall($id: ID!) {\n    executeApprovedToolCall(toolCallId: $id) { ...CallAnswer }\n  }\n": types.ExecuteApprovedToolCallDocument,
    "\n  mutation ResolveApproval($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) { id status }\n  }\n": types.ResolveApprovalDocument,
    "\n  mutation CompleteRun($id: ID!) {\n    completeAgentRun(runId: $id) { id status completedAt }\n  }\n": types.CompleteRunDocument,
    "\n  mutation CreateSpecialist($input: CreateSpecialistInput!) {\n    createSpecialist(input: $input) { id name description systemPrompt }\n  }\n": types.CreateSpecialistDocument,
    "\n  query OrgSpecialists {\n    viewer { org { id specialists { id name } } }\n  }\n": types.OrgSpecialistsDocument,
    "\n  query OrgFeatureFlags {\n    viewer { org { id featureFlags { key enabled } } }\n  }\n": types.OrgFeatureFlagsDocument,
    "\n  query OrgIntegrations {\n    viewer { org { id integrations { id integrationType keyVersion createdAt updatedAt } } }\n  }\n": types.OrgIntegrationsDocument,
    "\n  mutation SetToolPermission($tool: String!, $action: String!, $enabled: Boolean!) {\n    setToolPermission(toolName: $tool, action: $action, enabled: $enabled) { toolName action enabled }\n  }\n": types.SetToolPermissionDocument,
    "\n  mutation BindTool($input: BindToolInput!) {\n    bindToolToSpecialist(input: $input) { specialistId toolName action bound }\n  }\n": types.BindToolDocument,
    "\n  mutation PutCredential($type: String!, $config: JSONObject!) {\n    putIntegrationCredential(integrationType: $type, config: $config) {\n      id integrationType keyVersion createdAt updatedAt\n    }\n  }\n": types.PutCredentialDocument,
    "\n  fragment RuleFields on PolicyRule {\n    id name position toolPattern actionPattern\n    conditions { path op value }\n    roles specialistId risk decision enabled\n  }\n": types.RuleFieldsFragmentDoc,
    "\n  mutation UpsertPolicyRule($input: PolicyRuleInput!) {\n    upsertPolicyRule(input: $input) { ...RuleFields }\n  }\n": types.UpsertPolicyRuleDocument,
    "\n  mutation DeletePolicyRule($id: ID!) {\n    deletePolicyRule(id: $id)\n  }\n": types.DeletePolicyRuleDocument,
    "\n  mutation SetShadowMode($enabled: Boolean!) {\n    setPolicyShadowMode(enabled: $enabled)\n  }\n": types.SetShadowModeDocument,
    "\n  fragment McpServerFields on McpServer {\n    id name url transport defaultRisk defaultIdempotent defaultCostCents hasCredential tools createdAt lastImportedAt\n    drift { tool fields pinnedHash pinnedAt }\n  }\n": types.McpServerFieldsFragmentDoc,
    "\n  mutation RegisterMcpServer($input: RegisterMcpServerInput!) {\n    registerMcpServer(input: $input) { ...McpServerFields }\n  }\n": types.RegisterMcpServerDocument,
    "\n  mutation ImportMcpTools($id: ID!) {\n    importMcpServerTools(serverId: $id) {\n      server { ...McpServerFields }\n      added removed schemaChanged descriptionChanged unchanged\n      skipped { name reason }\n      drifted { tool fields }\n    }\n  }\n": types.ImportMcpToolsDocument,
    "\n  query McpServers {\n    mcpServers { ...McpServerFields }\n  }\n": types.McpServersDocument,
    "\n  query UpstreamCatalog {\n    toolCatalog { name toolName action vendor defaultRisk idempotent inputSchema costCents enabled }\n  }\n": types.UpstreamCatalogDocument,
    "\n  query UpstreamRunManifest($id: ID!) {\n    run(id: $id) { id status allowedTools }\n  }\n": types.UpstreamRunManifestDocument,
    "\n  query UpstreamToolCall($id: ID!) {\n    toolCall(id: $id) {\n      toolName action status errorCode errorText input output retryCount durationMs costCents vendorStatusCode\n      ledgerEvents { type metadata }\n    }\n  }\n": types.UpstreamToolCallDocument,
    "\n  query FullCatalog {\n    toolCatalog { name toolName action vendor description defaultRisk idempotent inputSchema costCents enabled }\n  }\n": types.FullCatalogDocument,
    "\n  query CallDecision($id: ID!) {\n    toolCall(id: $id) { reviewRequired policyDecision { outcome risk matchedRuleId reason } }\n  }\n": types.CallDecisionDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AdminLedger($after: String, $type: String) {\n    ledgerEvents(first: 100, after: $after, filter: {type: $type}) {\n      edges { node { id sequence type resourceId actorRole metadata prevHash hash createdAt } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n"): (typeof documents)["\n  query AdminLedger($after: String, $type: String) {\n    ledgerEvents(first: 100, after: $after, filter: {type: $type}) {\n      edges { node { id sequence type resourceId actorRole metadata prevHash hash createdAt } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CredentialType {\n    __type(name: \"IntegrationCredential\") { fields { name } }\n  }\n"): (typeof documents)["\n  query CredentialType {\n    __type(name: \"IntegrationCredential\") { fields { name } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SchemaFields {\n    __schema { types { name fields { name } } }\n  }\n"): (typeof documents)["\n  query SchemaFields {\n    __schema { types { name fields { name } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SchemaRoot {\n    __schema { queryType { name } }\n  }\n"): (typeof documents)["\n  query SchemaRoot {\n    __schema { queryType { name } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CrossOrgRun($id: ID!) {\n    run(id: $id) { id status }\n  }\n"): (typeof documents)["\n  query CrossOrgRun($id: ID!) {\n    run(id: $id) { id status }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CrossOrgToolCall($id: ID!) {\n    toolCall(id: $id) { id status }\n  }\n"): (typeof documents)["\n  query CrossOrgToolCall($id: ID!) {\n    toolCall(id: $id) { id status }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CrossOrgRuns($filter: RunFilter, $first: Int) {\n    runs(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n"): (typeof documents)["\n  query CrossOrgRuns($filter: RunFilter, $first: Int) {\n    runs(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CrossOrgToolCalls($filter: ToolCallFilter, $first: Int) {\n    toolCalls(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n"): (typeof documents)["\n  query CrossOrgToolCalls($filter: ToolCallFilter, $first: Int) {\n    toolCalls(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CrossOrgApprovals($filter: ApprovalRequestFilter, $first: Int) {\n    approvalRequests(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n"): (typeof documents)["\n  query CrossOrgApprovals($filter: ApprovalRequestFilter, $first: Int) {\n    approvalRequests(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CrossOrgDecisions($filter: PolicyDecisionFilter, $first: Int) {\n    policyDecisions(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n"): (typeof documents)["\n  query CrossOrgDecisions($filter: PolicyDecisionFilter, $first: Int) {\n    policyDecisions(filter: $filter, first: $first) { totalCount edges { node { id } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CrossOrgLedger($filter: LedgerEventFilter, $first: Int, $after: String) {\n    ledgerEvents(filter: $filter, first: $first, after: $after) { totalCount edges { node { id runId resourceId } } }\n  }\n"): (typeof documents)["\n  query CrossOrgLedger($filter: LedgerEventFilter, $first: Int, $after: String) {\n    ledgerEvents(filter: $filter, first: $first, after: $after) { totalCount edges { node { id runId resourceId } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CrossOrgRunRelations($id: ID!) {\n    run(id: $id) {\n      id\n      specialist { id }\n      toolCalls {\n        id\n        run { id }\n        policyDecision { id }\n        approvalRequest { id toolCall { id } }\n        ledgerEvents { id resourceId }\n      }\n      ledgerEvents { resourceId }\n    }\n  }\n"): (typeof documents)["\n  query CrossOrgRunRelations($id: ID!) {\n    run(id: $id) {\n      id\n      specialist { id }\n      toolCalls {\n        id\n        run { id }\n        policyDecision { id }\n        approvalRequest { id toolCall { id } }\n        ledgerEvents { id resourceId }\n      }\n      ledgerEvents { resourceId }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    mutation CrossOrgBind($specialistId: ID!) {\n      bindToolToSpecialist(\n  input: {specialistId: $specialistId, toolName: \"order_lookup\", action: \"lookup\"}\n) {\n        specialistId bound\n      }\n    }\n  "): (typeof documents)["\n    mutation CrossOrgBind($specialistId: ID!) {\n      bindToolToSpecialist(\n  input: {specialistId: $specialistId, toolName: \"order_lookup\", action: \"lookup\"}\n) {\n        specialistId bound\n      }\n    }\n  "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ToolCallsByTool($filter: ToolCallFilter) {\n    toolCalls(filter: $filter, first: 5) { totalCount }\n  }\n"): (typeof documents)["\n  query ToolCallsByTool($filter: ToolCallFilter) {\n    toolCalls(filter: $filter, first: 5) { totalCount }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query OutageViewer {\n      viewer { role org { id name } }\n    }\n  "): (typeof documents)["\n    query OutageViewer {\n      viewer { role org { id name } }\n    }\n  "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    mutation OutageFlag($key: String!) {\n      setFeatureFlag(key: $key, enabled: true) { key enabled }\n    }\n  "): (typeof documents)["\n    mutation OutageFlag($key: String!) {\n      setFeatureFlag(key: $key, enabled: true) { key enabled }\n    }\n  "];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment Page on PageInfo {\n    hasNextPage hasPreviousPage startCursor endCursor\n  }\n"): (typeof documents)["\n  fragment Page on PageInfo {\n    hasNextPage hasPreviousPage startCursor endCursor\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReadRuns($first: Int, $after: String, $filter: RunFilter) {\n    runs(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id status specialistId createdAt } }\n    }\n  }\n"): (typeof documents)["\n  query ReadRuns($first: Int, $after: String, $filter: RunFilter) {\n    runs(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id status specialistId createdAt } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReadToolCalls($first: Int, $after: String, $filter: ToolCallFilter) {\n    toolCalls(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id runId toolName status } }\n    }\n  }\n"): (typeof documents)["\n  query ReadToolCalls($first: Int, $after: String, $filter: ToolCallFilter) {\n    toolCalls(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id runId toolName status } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReadApprovals($first: Int, $after: String, $filter: ApprovalRequestFilter) {\n    approvalRequests(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id kind status runId toolCall { id } } }\n    }\n  }\n"): (typeof documents)["\n  query ReadApprovals($first: Int, $after: String, $filter: ApprovalRequestFilter) {\n    approvalRequests(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id kind status runId toolCall { id } } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReadLedger($first: Int, $after: String, $filter: LedgerEventFilter) {\n    ledgerEvents(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id sequence type runId resourceId prevHash hash } }\n    }\n  }\n"): (typeof documents)["\n  query ReadLedger($first: Int, $after: String, $filter: LedgerEventFilter) {\n    ledgerEvents(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id sequence type runId resourceId prevHash hash } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReadDecisions($first: Int, $after: String, $filter: PolicyDecisionFilter) {\n    policyDecisions(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id runId outcome } }\n    }\n  }\n"): (typeof documents)["\n  query ReadDecisions($first: Int, $after: String, $filter: PolicyDecisionFilter) {\n    policyDecisions(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { ...Page }\n      edges { cursor node { id runId outcome } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReadRunRelations($id: ID!) {\n    run(id: $id) {\n      id status\n      specialist { id name }\n      toolCalls { id toolName action status }\n      ledgerEvents { type runId resourceId }\n    }\n  }\n"): (typeof documents)["\n  query ReadRunRelations($id: ID!) {\n    run(id: $id) {\n      id status\n      specialist { id name }\n      toolCalls { id toolName action status }\n      ledgerEvents { type runId resourceId }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReadToolCallRelations($id: ID!) {\n    toolCall(id: $id) {\n      id\n      policyDecision { id outcome }\n      approvalRequest { id kind status toolCallId }\n      ledgerEvents { type resourceId }\n      run { id }\n    }\n  }\n"): (typeof documents)["\n  query ReadToolCallRelations($id: ID!) {\n    toolCall(id: $id) {\n      id\n      policyDecision { id outcome }\n      approvalRequest { id kind status toolCallId }\n      ledgerEvents { type resourceId }\n      run { id }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment RunRelations on AgentRun {\n    id\n    toolCalls { id policyDecision { id } approvalRequest { id } }\n  }\n"): (typeof documents)["\n  fragment RunRelations on AgentRun {\n    id\n    toolCalls { id policyDecision { id } approvalRequest { id } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NestedRuns {\n    runs(first: 50) { edges { node { ...RunRelations } } }\n  }\n"): (typeof documents)["\n  query NestedRuns {\n    runs(first: 50) { edges { node { ...RunRelations } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NestedRunsPage($after: String) {\n    runs(first: 5, after: $after) { pageInfo { endCursor } edges { node { ...RunRelations } } }\n  }\n"): (typeof documents)["\n  query NestedRunsPage($after: String) {\n    runs(first: 5, after: $after) { pageInfo { endCursor } edges { node { ...RunRelations } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SocketViewer {\n    viewer { org { id } role }\n  }\n"): (typeof documents)["\n  query SocketViewer {\n    viewer { org { id } role }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ResolveWithEdits($id: ID!, $decision: ApprovalDecision!, $reason: String, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason, editedParams: $editedParams) {\n      id status kind resolvedBy reason edited editedParams editedBy\n    }\n  }\n"): (typeof documents)["\n  mutation ResolveWithEdits($id: ID!, $decision: ApprovalDecision!, $reason: String, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason, editedParams: $editedParams) {\n      id status kind resolvedBy reason edited editedParams editedBy\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ExecuteApprovedEdited($id: ID!) {\n    executeApprovedToolCall(toolCallId: $id) { status toolCallId result error { code message } approvalRequestId replayed editedParams }\n  }\n"): (typeof documents)["\n  mutation ExecuteApprovedEdited($id: ID!) {\n    executeApprovedToolCall(toolCallId: $id) { status toolCallId result error { code message } approvalRequestId replayed editedParams }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EditedCall($id: ID!) {\n    toolCall(id: $id) {\n      id status input editedInput riskLevel\n      policyDecision { outcome risk }\n      approvalRequest { id status edited editedParams editedBy }\n    }\n  }\n"): (typeof documents)["\n  query EditedCall($id: ID!) {\n    toolCall(id: $id) {\n      id status input editedInput riskLevel\n      policyDecision { outcome risk }\n      approvalRequest { id status edited editedParams editedBy }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DecideApproval($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) { id status kind resolvedBy reason resolvedAt }\n  }\n"): (typeof documents)["\n  mutation DecideApproval($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) { id status kind resolvedBy reason resolvedAt }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApprovalCount {\n    approvalRequests { totalCount }\n  }\n"): (typeof documents)["\n  query ApprovalCount {\n    approvalRequests { totalCount }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RunApprovals($id: ID!) {\n    run(id: $id) { status pendingApprovalCount }\n  }\n"): (typeof documents)["\n  query RunApprovals($id: ID!) {\n    run(id: $id) { status pendingApprovalCount }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExpertQueue {\n    approvalRequests(filter: {status: pending, kind: expert}, first: 100) {\n      edges { node { id status kind toolCall { id status } } }\n    }\n  }\n"): (typeof documents)["\n  query ExpertQueue {\n    approvalRequests(filter: {status: pending, kind: expert}, first: 100) {\n      edges { node { id status kind toolCall { id status } } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExecutorToolCall($id: ID!) {\n    toolCall(id: $id) {\n      status errorCode errorText vendorStatusCode retryCount durationMs costCents\n      ledgerEvents { type metadata }\n    }\n  }\n"): (typeof documents)["\n  query ExecutorToolCall($id: ID!) {\n    toolCall(id: $id) {\n      status errorCode errorText vendorStatusCode retryCount durationMs costCents\n      ledgerEvents { type metadata }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RunOutcomes($id: ID!) {\n    run(id: $id) { status errorCode toolCalls { status errorCode } ledgerEvents { type } }\n  }\n"): (typeof documents)["\n  query RunOutcomes($id: ID!) {\n    run(id: $id) { status errorCode toolCalls { status errorCode } ledgerEvents { type } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RunCost($id: ID!) {\n    run(id: $id) { toolCostCents }\n  }\n"): (typeof documents)["\n  query RunCost($id: ID!) {\n    run(id: $id) { toolCostCents }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query GatewayToolCall($id: ID!) {\n    toolCall(id: $id) {\n      id runId toolName action correlationId status errorCode errorText riskLevel reviewRequired input output durationMs\n      costCents retryCount vendorStatusCode\n      ledgerEvents { type actorRole resourceId runId metadata }\n      policyDecision { outcome shadowOutcome risk matchedRuleId policyVersion callerRole reason toolName action runId }\n      approvalRequest { id kind status }\n    }\n  }\n"): (typeof documents)["\n  query GatewayToolCall($id: ID!) {\n    toolCall(id: $id) {\n      id runId toolName action correlationId status errorCode errorText riskLevel reviewRequired input output durationMs\n      costCents retryCount vendorStatusCode\n      ledgerEvents { type actorRole resourceId runId metadata }\n      policyDecision { outcome shadowOutcome risk matchedRuleId policyVersion callerRole reason toolName action runId }\n      approvalRequest { id kind status }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query GatewayRun($id: ID!) {\n    run(id: $id) {\n      id status allowedTools policyVersion pendingApprovalCount toolCostCents\n      toolCalls { id status costCents }\n      ledgerEvents { type resourceId metadata }\n    }\n  }\n"): (typeof documents)["\n  query GatewayRun($id: ID!) {\n    run(id: $id) {\n      id status allowedTools policyVersion pendingApprovalCount toolCostCents\n      toolCalls { id status costCents }\n      ledgerEvents { type resourceId metadata }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query GatewayOrgPolicy {\n    viewer { org { policyVersion policyShadowMode } }\n  }\n"): (typeof documents)["\n  query GatewayOrgPolicy {\n    viewer { org { policyVersion policyShadowMode } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PolicyRules {\n    policyRules { ...RuleFields }\n  }\n"): (typeof documents)["\n  query PolicyRules {\n    policyRules { ...RuleFields }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PolicyChanges {\n    ledgerEvents(first: 100, filter: {type: \"policy.changed\"}) { edges { node { type resourceId actorRole metadata } } }\n  }\n"): (typeof documents)["\n  query PolicyChanges {\n    ledgerEvents(first: 100, filter: {type: \"policy.changed\"}) { edges { node { type resourceId actorRole metadata } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PolicyRuleOrder {\n    policyRules { id name position enabled }\n  }\n"): (typeof documents)["\n  query PolicyRuleOrder {\n    policyRules { id name position enabled }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PersonResolves($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) {\n      id\n      status\n      resolvedBy\n      resolvedByName\n      resolvedByPerson { issuer subject name }\n    }\n  }\n"): (typeof documents)["\n  mutation PersonResolves($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) {\n      id\n      status\n      resolvedBy\n      resolvedByName\n      resolvedByPerson { issuer subject name }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PersonViewer {\n    viewer { role apiKeyId org { id } person { issuer subject name } }\n  }\n"): (typeof documents)["\n  query PersonViewer {\n    viewer { role apiKeyId org { id } person { issuer subject name } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query VerifyLedger {\n    verifyLedger { ok eventsChecked firstBadSequence firstBadEventId problem }\n  }\n"): (typeof documents)["\n  query VerifyLedger {\n    verifyLedger { ok eventsChecked firstBadSequence firstBadEventId problem }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation McpApproveEdited($id: ID!, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: APPROVE, editedParams: $editedParams) { id status edited }\n  }\n"): (typeof documents)["\n  mutation McpApproveEdited($id: ID!, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: APPROVE, editedParams: $editedParams) { id status edited }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment HistoryRuleFields on PolicyRule {\n    id name history { kind tool action scope customerPath paramPath windowSeconds limit }\n  }\n"): (typeof documents)["\n  fragment HistoryRuleFields on PolicyRule {\n    id name history { kind tool action scope customerPath paramPath windowSeconds limit }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpsertHistoryRule($input: PolicyRuleInput!) {\n    upsertPolicyRule(input: $input) { ...HistoryRuleFields }\n  }\n"): (typeof documents)["\n  mutation UpsertHistoryRule($input: PolicyRuleInput!) {\n    upsertPolicyRule(input: $input) { ...HistoryRuleFields }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HistoryRules {\n    policyRules { id }\n  }\n"): (typeof documents)["\n  query HistoryRules {\n    policyRules { id }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteHistoryRule($id: ID!) {\n    deletePolicyRule(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeleteHistoryRule($id: ID!) {\n    deletePolicyRule(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription RunEvents($runId: ID!, $after: String) {\n    runEvents(runId: $runId, afterSequence: $after) { sequence type runId resourceId metadata createdAt }\n  }\n"): (typeof documents)["\n  subscription RunEvents($runId: ID!, $after: String) {\n    runEvents(runId: $runId, afterSequence: $after) { sequence type runId resourceId metadata createdAt }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ToolCallChanges($runId: ID, $after: String) {\n    toolCallStatusChanged(runId: $runId, afterSequence: $after) {\n      sequence status\n      toolCall { id runId toolName action status input output errorCode }\n    }\n  }\n"): (typeof documents)["\n  subscription ToolCallChanges($runId: ID, $after: String) {\n    toolCallStatusChanged(runId: $runId, afterSequence: $after) {\n      sequence status\n      toolCall { id runId toolName action status input output errorCode }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ApprovalChanges($kind: ApprovalKind, $after: String) {\n    approvalRequests(kind: $kind, afterSequence: $after) {\n      sequence change\n      approvalRequest { id kind status toolCallId runId resolvedBy }\n    }\n  }\n"): (typeof documents)["\n  subscription ApprovalChanges($kind: ApprovalKind, $after: String) {\n    approvalRequests(kind: $kind, afterSequence: $after) {\n      sequence change\n      approvalRequest { id kind status toolCallId runId resolvedBy }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription RunTokens($runId: ID!, $after: String) {\n    runTokens(runId: $runId, afterOffset: $after) { runId offset text }\n  }\n"): (typeof documents)["\n  subscription RunTokens($runId: ID!, $after: String) {\n    runTokens(runId: $runId, afterOffset: $after) { runId offset text }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription RetractingTokens($runId: ID!, $after: String) {\n    runTokens(runId: $runId, afterOffset: $after) { runId offset text retractFrom }\n  }\n"): (typeof documents)["\n  subscription RetractingTokens($runId: ID!, $after: String) {\n    runTokens(runId: $runId, afterOffset: $after) { runId offset text retractFrom }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RunCacheCost($id: ID!) {\n    run(id: $id) { status inputTokens outputTokens cacheCreationInputTokens cacheReadInputTokens llmCostUsd }\n  }\n"): (typeof documents)["\n  query RunCacheCost($id: ID!) {\n    run(id: $id) { status inputTokens outputTokens cacheCreationInputTokens cacheReadInputTokens llmCostUsd }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RunStatusPoll($id: ID!) {\n    run(id: $id) { id status }\n  }\n"): (typeof documents)["\n  query RunStatusPoll($id: ID!) {\n    run(id: $id) { id status }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RunDetail($id: ID!) {\n    run(id: $id) {\n      id status driver reply stopReason replyTruncated pendingApprovalCount inputTokens outputTokens llmCostUsd errorCode errorMessage\n      allowedTools\n      messages {\n        position role content text\n        blocks {\n          __typename\n          ... on TextBlock { text }\n          ... on ToolUseBlock { toolUseId name tool input toolCallId status }\n          ... on ToolResultBlock { toolUseId isError pending content toolCallId status }\n        }\n      }\n      toolCalls {\n        id toolName action status errorCode errorText vendorStatusCode input output riskLevel\n        policyDecision { id outcome risk }\n        approvalRequest { id status kind }\n      }\n      ledgerEvents { type resourceId metadata }\n    }\n  }\n"): (typeof documents)["\n  query RunDetail($id: ID!) {\n    run(id: $id) {\n      id status driver reply stopReason replyTruncated pendingApprovalCount inputTokens outputTokens llmCostUsd errorCode errorMessage\n      allowedTools\n      messages {\n        position role content text\n        blocks {\n          __typename\n          ... on TextBlock { text }\n          ... on ToolUseBlock { toolUseId name tool input toolCallId status }\n          ... on ToolResultBlock { toolUseId isError pending content toolCallId status }\n        }\n      }\n      toolCalls {\n        id toolName action status errorCode errorText vendorStatusCode input output riskLevel\n        policyDecision { id outcome risk }\n        approvalRequest { id status kind }\n      }\n      ledgerEvents { type resourceId metadata }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PostMessage($runId: ID!, $text: String!) {\n    postMessage(runId: $runId, text: $text) { id status }\n  }\n"): (typeof documents)["\n  mutation PostMessage($runId: ID!, $text: String!) {\n    postMessage(runId: $runId, text: $text) { id status }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CancelRun($runId: ID!) {\n    cancelRun(runId: $runId) { id status pendingApprovalCount }\n  }\n"): (typeof documents)["\n  mutation CancelRun($runId: ID!) {\n    cancelRun(runId: $runId) { id status pendingApprovalCount }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RuntimeApproveEdited($id: ID!, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: APPROVE, editedParams: $editedParams) { id status edited editedParams }\n  }\n"): (typeof documents)["\n  mutation RuntimeApproveEdited($id: ID!, $editedParams: JSONObject) {\n    resolveApproval(id: $id, decision: APPROVE, editedParams: $editedParams) { id status edited editedParams }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateThinkingSpecialist($input: CreateSpecialistInput!) {\n    createSpecialist(input: $input) { id thinkingBudgetTokens }\n  }\n"): (typeof documents)["\n  mutation CreateThinkingSpecialist($input: CreateSpecialistInput!) {\n    createSpecialist(input: $input) { id thinkingBudgetTokens }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetSpecialistThinking($id: ID!, $budget: Int) {\n    setSpecialistThinking(specialistId: $id, budgetTokens: $budget) { id thinkingBudgetTokens }\n  }\n"): (typeof documents)["\n  mutation SetSpecialistThinking($id: ID!, $budget: Int) {\n    setSpecialistThinking(specialistId: $id, budgetTokens: $budget) { id thinkingBudgetTokens }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RunThinking($id: ID!) {\n    run(id: $id) {\n      thinkingBudgetTokens outputTokens\n      messages { content blocks { __typename ... on ThinkingBlock { redacted } } }\n    }\n  }\n"): (typeof documents)["\n  query RunThinking($id: ID!) {\n    run(id: $id) {\n      thinkingBudgetTokens outputTokens\n      messages { content blocks { __typename ... on ThinkingBlock { redacted } } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CallAnswer on ToolCallResult {\n    status toolCallId result\n    error { code message }\n    approvalRequestId replayed\n  }\n"): (typeof documents)["\n  fragment CallAnswer on ToolCallResult {\n    status toolCallId result\n    error { code message }\n    approvalRequestId replayed\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation StartAgentRun($input: StartAgentRunInput!) {\n    startAgentRun(input: $input) { id status driver allowedTools policyVersion }\n  }\n"): (typeof documents)["\n  mutation StartAgentRun($input: StartAgentRunInput!) {\n    startAgentRun(input: $input) { id status driver allowedTools policyVersion }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ExecuteToolCall($input: ExecuteToolCallInput!) {\n    executeToolCall(input: $input) { ...CallAnswer }\n  }\n"): (typeof documents)["\n  mutation ExecuteToolCall($input: ExecuteToolCallInput!) {\n    executeToolCall(input: $input) { ...CallAnswer }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ExecuteApprovedToolCall($id: ID!) {\n    executeApprovedToolCall(toolCallId: $id) { ...CallAnswer }\n  }\n"): (typeof documents)["\n  mutation ExecuteApprovedToolCall($id: ID!) {\n    executeApprovedToolCall(toolCallId: $id) { ...CallAnswer }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ResolveApproval($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) { id status }\n  }\n"): (typeof documents)["\n  mutation ResolveApproval($id: ID!, $decision: ApprovalDecision!, $reason: String) {\n    resolveApproval(id: $id, decision: $decision, reason: $reason) { id status }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CompleteRun($id: ID!) {\n    completeAgentRun(runId: $id) { id status completedAt }\n  }\n"): (typeof documents)["\n  mutation CompleteRun($id: ID!) {\n    completeAgentRun(runId: $id) { id status completedAt }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateSpecialist($input: CreateSpecialistInput!) {\n    createSpecialist(input: $input) { id name description systemPrompt }\n  }\n"): (typeof documents)["\n  mutation CreateSpecialist($input: CreateSpecialistInput!) {\n    createSpecialist(input: $input) { id name description systemPrompt }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query OrgSpecialists {\n    viewer { org { id specialists { id name } } }\n  }\n"): (typeof documents)["\n  query OrgSpecialists {\n    viewer { org { id specialists { id name } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query OrgFeatureFlags {\n    viewer { org { id featureFlags { key enabled } } }\n  }\n"): (typeof documents)["\n  query OrgFeatureFlags {\n    viewer { org { id featureFlags { key enabled } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query OrgIntegrations {\n    viewer { org { id integrations { id integrationType keyVersion createdAt updatedAt } } }\n  }\n"): (typeof documents)["\n  query OrgIntegrations {\n    viewer { org { id integrations { id integrationType keyVersion createdAt updatedAt } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetToolPermission($tool: String!, $action: String!, $enabled: Boolean!) {\n    setToolPermission(toolName: $tool, action: $action, enabled: $enabled) { toolName action enabled }\n  }\n"): (typeof documents)["\n  mutation SetToolPermission($tool: String!, $action: String!, $enabled: Boolean!) {\n    setToolPermission(toolName: $tool, action: $action, enabled: $enabled) { toolName action enabled }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation BindTool($input: BindToolInput!) {\n    bindToolToSpecialist(input: $input) { specialistId toolName action bound }\n  }\n"): (typeof documents)["\n  mutation BindTool($input: BindToolInput!) {\n    bindToolToSpecialist(input: $input) { specialistId toolName action bound }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PutCredential($type: String!, $config: JSONObject!) {\n    putIntegrationCredential(integrationType: $type, config: $config) {\n      id integrationType keyVersion createdAt updatedAt\n    }\n  }\n"): (typeof documents)["\n  mutation PutCredential($type: String!, $config: JSONObject!) {\n    putIntegrationCredential(integrationType: $type, config: $config) {\n      id integrationType keyVersion createdAt updatedAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment RuleFields on PolicyRule {\n    id name position toolPattern actionPattern\n    conditions { path op value }\n    roles specialistId risk decision enabled\n  }\n"): (typeof documents)["\n  fragment RuleFields on PolicyRule {\n    id name position toolPattern actionPattern\n    conditions { path op value }\n    roles specialistId risk decision enabled\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpsertPolicyRule($input: PolicyRuleInput!) {\n    upsertPolicyRule(input: $input) { ...RuleFields }\n  }\n"): (typeof documents)["\n  mutation UpsertPolicyRule($input: PolicyRuleInput!) {\n    upsertPolicyRule(input: $input) { ...RuleFields }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeletePolicyRule($id: ID!) {\n    deletePolicyRule(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeletePolicyRule($id: ID!) {\n    deletePolicyRule(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetShadowMode($enabled: Boolean!) {\n    setPolicyShadowMode(enabled: $enabled)\n  }\n"): (typeof documents)["\n  mutation SetShadowMode($enabled: Boolean!) {\n    setPolicyShadowMode(enabled: $enabled)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment McpServerFields on McpServer {\n    id name url transport defaultRisk defaultIdempotent defaultCostCents hasCredential tools createdAt lastImportedAt\n    drift { tool fields pinnedHash pinnedAt }\n  }\n"): (typeof documents)["\n  fragment McpServerFields on McpServer {\n    id name url transport defaultRisk defaultIdempotent defaultCostCents hasCredential tools createdAt lastImportedAt\n    drift { tool fields pinnedHash pinnedAt }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RegisterMcpServer($input: RegisterMcpServerInput!) {\n    registerMcpServer(input: $input) { ...McpServerFields }\n  }\n"): (typeof documents)["\n  mutation RegisterMcpServer($input: RegisterMcpServerInput!) {\n    registerMcpServer(input: $input) { ...McpServerFields }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ImportMcpTools($id: ID!) {\n    importMcpServerTools(serverId: $id) {\n      server { ...McpServerFields }\n      added removed schemaChanged descriptionChanged unchanged\n      skipped { name reason }\n      drifted { tool fields }\n    }\n  }\n"): (typeof documents)["\n  mutation ImportMcpTools($id: ID!) {\n    importMcpServerTools(serverId: $id) {\n      server { ...McpServerFields }\n      added removed schemaChanged descriptionChanged unchanged\n      skipped { name reason }\n      drifted { tool fields }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query McpServers {\n    mcpServers { ...McpServerFields }\n  }\n"): (typeof documents)["\n  query McpServers {\n    mcpServers { ...McpServerFields }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query UpstreamCatalog {\n    toolCatalog { name toolName action vendor defaultRisk idempotent inputSchema costCents enabled }\n  }\n"): (typeof documents)["\n  query UpstreamCatalog {\n    toolCatalog { name toolName action vendor defaultRisk idempotent inputSchema costCents enabled }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query UpstreamRunManifest($id: ID!) {\n    run(id: $id) { id status allowedTools }\n  }\n"): (typeof documents)["\n  query UpstreamRunManifest($id: ID!) {\n    run(id: $id) { id status allowedTools }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query UpstreamToolCall($id: ID!) {\n    toolCall(id: $id) {\n      toolName action status errorCode errorText input output retryCount durationMs costCents vendorStatusCode\n      ledgerEvents { type metadata }\n    }\n  }\n"): (typeof documents)["\n  query UpstreamToolCall($id: ID!) {\n    toolCall(id: $id) {\n      toolName action status errorCode errorText input output retryCount durationMs costCents vendorStatusCode\n      ledgerEvents { type metadata }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query FullCatalog {\n    toolCatalog { name toolName action vendor description defaultRisk idempotent inputSchema costCents enabled }\n  }\n"): (typeof documents)["\n  query FullCatalog {\n    toolCatalog { name toolName action vendor description defaultRisk idempotent inputSchema costCents enabled }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CallDecision($id: ID!) {\n    toolCall(id: $id) { reviewRequired policyDecision { outcome risk matchedRuleId reason } }\n  }\n"): (typeof documents)["\n  query CallDecision($id: ID!) {\n    toolCall(id: $id) { reviewRequired policyDecision { outcome risk matchedRuleId reason } }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;