import type { Role } from './roles';

/** What one operation (or restricted field) is, and which roles may use it. */
interface Access {
  roles: readonly Role[];
  /** One line for the README's role table. */
  what: string;
}

const ALL: readonly Role[] = ['admin', 'expert', 'client', 'partner', 'agent'];
const AUDIT: readonly Role[] = ['admin', 'expert'];
const ADMIN: readonly Role[] = ['admin'];
/** Every role but partner: a partner integration reads runs and tool calls, never the conversation. */
const CONVERSATION: readonly Role[] = ['admin', 'expert', 'client', 'agent'];

/**
 * Which role may do what, declared once. Keys are schema coordinates (`Type.field`): the
 * auth checker looks every `@Authorized()` field up here, subscriptions and the MCP route
 * ask `mayUse`, the README's role table is rendered from it (`npm run docs:access`), and
 * `test/api/access-matrix.test.ts` tries every operation with every role against it.
 * A coordinate missing here is refused to every role (fail closed).
 */
export const ACCESS_MATRIX = {
  'Query.viewer': { roles: ALL, what: 'the key itself: its org and role' },
  'Query.toolCatalog': { roles: ALL, what: "the org's tool catalog" },
  'Org.specialists': { roles: ALL, what: "the org's specialists" },
  'Specialist.systemPrompt': { roles: AUDIT, what: "a specialist's system prompt (the operator's instructions to the model)" },
  'Query.runs': { roles: ALL, what: 'list runs (only the runs the role reads: see below)' },
  'Query.run': { roles: ALL, what: 'read a run (only a run the role reads: see below)' },
  'AgentRun.messages': { roles: CONVERSATION, what: "a run's conversation" },
  'AgentRun.reply': { roles: CONVERSATION, what: "a run's last answer" },
  'Query.toolCalls': { roles: ALL, what: 'list tool calls (of the runs the role reads)' },
  'Query.toolCall': { roles: ALL, what: 'read a tool call (of a run the role reads)' },
  'Subscription.runEvents': { roles: ALL, what: "a run's events live (ledger metadata only for admin and expert)" },
  'Subscription.runTokens': { roles: CONVERSATION, what: "a run's model text live" },
  'Subscription.toolCallStatusChanged': { roles: ALL, what: 'tool-call transitions live (of the runs the role reads)' },
  'Query.approvalRequests': { roles: ['admin', 'expert', 'client'], what: 'the approval queue' },
  'ToolCall.approvalRequest': { roles: ['admin', 'expert', 'client'], what: "a tool call's approval request" },
  'Subscription.approvalRequests': { roles: ['admin', 'expert', 'client'], what: 'the approval queue live' },
  'Subscription.approvalPresence': {
    roles: ['admin', 'expert', 'client'],
    what: 'who else has an approval open (key names and roles), counting the subscriber while it is open',
  },
  'Mutation.resolveApproval': {
    roles: ['expert', 'client'],
    what: 'approve (optionally with edited params) or reject: experts the expert queue, clients client approvals (admins do not approve)',
  },
  'Mutation.resolveApprovals': {
    roles: ['expert', 'client'],
    what: 'approve or reject several approvals with one reason, each resolved as resolveApproval resolves one, with a result per item',
  },
  'Mutation.revealApprovalParams': {
    roles: ['expert', 'client'],
    what: "a pending approval's real (sealed) params, for a role that resolves its kind; each view is in the ledger",
  },
  'Mutation.acknowledgeReview': {
    roles: AUDIT,
    what: 'acknowledge a call flagged for review, with a note (recorded in the ledger); it leaves the review queue',
  },
  'Query.ledgerEvents': { roles: AUDIT, what: 'the audit ledger' },
  'Query.verifyLedger': { roles: AUDIT, what: "verify the org's ledger chain" },
  'AgentRun.ledgerEvents': { roles: AUDIT, what: "a run's ledger events" },
  'ToolCall.ledgerEvents': { roles: AUDIT, what: "a tool call's ledger events" },
  'Query.policyDecisions': { roles: AUDIT, what: 'policy decisions' },
  'ToolCall.policyDecision': { roles: AUDIT, what: "a tool call's policy decision" },
  'Query.policyRules': { roles: AUDIT, what: 'policy rules in evaluation order' },
  'Query.cedarPolicies': { roles: AUDIT, what: 'Cedar policies, beside the rules' },
  'Query.cedarSchema': { roles: AUDIT, what: "the org's generated Cedar schema" },
  'Mutation.startAgentRun': { roles: ['admin', 'client', 'agent'], what: 'start a run' },
  'Mutation.postMessage': { roles: ['admin', 'client', 'agent'], what: 'continue a run with a message' },
  'Mutation.cancelRun': { roles: ['admin', 'client', 'agent'], what: 'cancel a run' },
  'Mutation.completeAgentRun': { roles: ['admin', 'agent'], what: 'complete an external run' },
  'Mutation.executeToolCall': { roles: ['agent'], what: "run a tool call of an external run through the gateway (the run's owner only)" },
  'Mutation.executeApprovedToolCall': { roles: ['agent'], what: "run an approved tool call of an external run (the run's owner only)" },
  'MCP./mcp': { roles: ['agent'], what: "the MCP endpoint (a run's governed tools; `/mcp/runs/<id>` the run's owner only)" },
  'Mutation.handOverRun': { roles: ADMIN, what: 'hand a run over to another key of the org, which then owns and drives it' },
  'Org.featureFlags': { roles: ADMIN, what: "the org's feature flags" },
  'Org.integrations': { roles: ADMIN, what: "the org's vendor integrations (never their secrets)" },
  'Mutation.setFeatureFlag': { roles: ADMIN, what: 'turn a feature flag on or off' },
  'Mutation.createSpecialist': { roles: ADMIN, what: 'create a specialist' },
  'Mutation.setSpecialistThinking': { roles: ADMIN, what: "turn a specialist's extended thinking on or off" },
  'Mutation.setToolPermission': { roles: ADMIN, what: 'enable or disable a tool action' },
  'Mutation.bindToolToSpecialist': { roles: ADMIN, what: 'bind a tool to a specialist' },
  'Mutation.putIntegrationCredential': { roles: ADMIN, what: 'store vendor credentials (encrypted)' },
  'Mutation.upsertPolicyRule': { roles: ADMIN, what: 'create or replace a policy rule' },
  'Mutation.deletePolicyRule': { roles: ADMIN, what: 'delete a policy rule' },
  'Mutation.upsertCedarPolicy': { roles: ADMIN, what: 'create or replace a Cedar policy (validated against the Cedar schema)' },
  'Mutation.deleteCedarPolicy': { roles: ADMIN, what: 'delete a Cedar policy' },
  'Mutation.setPolicyShadowMode': { roles: ADMIN, what: 'turn policy shadow mode on or off' },
  'Query.simulatePolicy': { roles: ADMIN, what: 'replay recorded calls against a draft rule set (reads them only; records that it ran)' },
  'Mutation.publishPolicy': { roles: ADMIN, what: 'replace the rule set with a draft (with its replay when the org requires one)' },
  'Mutation.setPolicyReplayRequired': { roles: ADMIN, what: 'require a replay before every policy change' },
  'Query.apiKeys': { roles: ADMIN, what: "the org's API keys (never their secrets)" },
  'Mutation.createApiKey': { roles: ADMIN, what: 'issue an API key (its secret shown once)' },
  'Mutation.revokeApiKey': { roles: ADMIN, what: 'revoke an API key (its open websockets closed)' },
  'Query.mcpServers': { roles: ADMIN, what: "the org's upstream MCP servers" },
  'Mutation.registerMcpServer': { roles: ADMIN, what: 'register an upstream MCP server' },
  'Mutation.importMcpServerTools': { roles: ADMIN, what: "import (again) an upstream MCP server's tools, with what changed" },
  'Query.webhookEndpoints': { roles: ADMIN, what: "the org's webhook endpoints (never their secrets)" },
  'Query.webhookDeliveries': { roles: ADMIN, what: "a webhook endpoint's deliveries and their attempts" },
  'Mutation.createWebhookEndpoint': { roles: ADMIN, what: 'register a webhook endpoint (its signing secret shown once)' },
  'Mutation.setWebhookEndpointEnabled': { roles: ADMIN, what: 'turn a webhook endpoint on or off' },
  'Mutation.deleteWebhookEndpoint': { roles: ADMIN, what: 'delete a webhook endpoint' },
  'Mutation.redeliverWebhook': { roles: ADMIN, what: 'send a webhook delivery again now' },
  'Query.identityBinding': { roles: ADMIN, what: "the org's single sign-on: issuer, tenant, which groups give which role" },
  'Mutation.setIdentityBinding': { roles: ADMIN, what: 'bind the org to an OpenID Connect issuer and map groups to roles' },
  'Mutation.removeIdentityBinding': { roles: ADMIN, what: "remove the org's single sign-on" },
} as const satisfies Record<string, Access>;

export type Operation = keyof typeof ACCESS_MATRIX;

/**
 * Which of the org's runs a role reads — lists, single reads, their tool calls and
 * approvals, subscriptions: `org` every run, `owned` the runs the key owns (opened, or was
 * handed), `owned_or_client_approval` those and the runs holding a client approval (a
 * client key approves there, and sees the conversation it approves in). A run the key does
 * not read is NOT_FOUND, exactly like a missing one. Whatever it reads, a key drives
 * (postMessage, completeAgentRun, executeToolCall, executeApprovedToolCall, `/mcp/runs/<id>`)
 * only the runs it owns (RUN_NOT_YOURS); an admin may also cancel or complete any run, and
 * hand it over to another key.
 */
export const RUN_SCOPE = {
  admin: 'org',
  expert: 'org',
  partner: 'org',
  client: 'owned_or_client_approval',
  agent: 'owned',
} as const satisfies Record<Role, 'org' | 'owned' | 'owned_or_client_approval'>;

/** Who resolves which kind of approval (beyond `Mutation.resolveApproval`'s roles). */
export const APPROVAL_RESOLVER = { expert: 'expert', client: 'client' } as const satisfies Record<string, Role>;

/** Roles that see ledger metadata in run events and review items in the approval queue. */
export const AUDIT_ROLES = AUDIT;

export function mayUse(coordinate: string, role: Role): boolean {
  const access = (ACCESS_MATRIX as Record<string, Access>)[coordinate];
  return access?.roles.includes(role) === true;
}
