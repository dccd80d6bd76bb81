import 'reflect-metadata';
import { buildSchema, type PubSub } from 'type-graphql';
import { printSchema, lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { authChecker } from '../graphql/auth-checker';
import { ViewerResolver, OrgResolver, OrgAdminResolver } from '../orgs/org.resolver';
import { CatalogResolver } from '../catalog/catalog.resolver';
import { CredentialResolver } from '../credentials/credential.resolver';
import { RunResolver } from '../runs/run.resolver';
import { ToolCallResolver } from '../gateway/tool-call.resolver';
import { ApprovalResolver } from '../approvals/approval.resolver';
import { ApprovalBulkResolver } from '../approvals/approval-bulk.resolver';
import { ApprovalPresenceResolver } from '../approvals/approval-presence.resolver';
import { ApprovalHistoryResolver } from '../approvals/approval-history.resolver';
import { PolicyDecisionResolver } from '../policy/policy-decision.resolver';
import { LedgerResolver } from '../ledger/ledger.resolver';
import { LedgerEventResolver } from '../ledger/ledger-event.resolver';
import { PolicyRuleResolver } from '../policy/policy-rule.resolver';
import { CedarPolicyResolver } from '../policy/cedar-policy.resolver';
import { RunLifecycleResolver } from '../runs/run-lifecycle.resolver';
import { GatewayResolver } from '../gateway/gateway.resolver';
import { SubscriptionResolver } from '../realtime/subscriptions.resolver';
import { UpstreamResolver } from '../upstream/upstream.resolver';
import { ApiKeyResolver } from '../auth/api-key.resolver';
import { WebhookResolver } from '../webhooks/webhook.resolver';
import {
  ApiKeyPersonResolver,
  ApprovalPersonResolver,
  IdentityBindingResolver,
  LedgerEventPersonResolver,
  ViewerPersonResolver,
} from '../identity/identity.resolver';

export const RESOLVERS = [
  ViewerResolver,
  OrgResolver,
  OrgAdminResolver,
  ApiKeyResolver,
  CatalogResolver,
  CredentialResolver,
  RunResolver,
  ToolCallResolver,
  ApprovalResolver,
  ApprovalBulkResolver,
  ApprovalPresenceResolver,
  ApprovalHistoryResolver,
  PolicyDecisionResolver,
  LedgerResolver,
  LedgerEventResolver,
  PolicyRuleResolver,
  CedarPolicyResolver,
  RunLifecycleResolver,
  GatewayResolver,
  SubscriptionResolver,
  UpstreamResolver,
  WebhookResolver,
  IdentityBindingResolver,
  ViewerPersonResolver,
  LedgerEventPersonResolver,
  ApprovalPersonResolver,
  ApiKeyPersonResolver,
] as const;

/** A subscription declared with `topics` instead of its own `subscribe` fails at once. */
const NO_PUB_SUB: PubSub = {
  publish() {
    throw new Error('Toolgate has no pub/sub: a subscription brings its own source');
  },
  subscribe() {
    throw new Error('Toolgate has no pub/sub: a subscription declares its own subscribe function');
  },
};

export async function buildToolgateSchema(): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: RESOLVERS,
    authChecker,
    authMode: 'error',
    // Every subscription brings its own source (the ledger tail, the token relay); type-graphql
    // still insists on a pub/sub when a schema has subscriptions: one that refuses to be used.
    pubSub: NO_PUB_SUB,
    validate: false,
  });
}

/** The committed schema.graphql: sorted, so it changes only when the API does. */
export function printToolgateSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
