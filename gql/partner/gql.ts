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
    "query PartnerViewer {\n  viewer {\n    role\n    apiKeyId\n    org {\n      id\n      name\n    }\n  }\n}\n\nquery PartnerRuns($filter: RunFilter, $first: Int = 20, $after: String) {\n  runs(filter: $filter, first: $first, after: $after) {\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        id\n        status\n        specialistId\n        correlationId\n        pendingApprovalCount\n        toolCostCents\n        createdAt\n        completedAt\n      }\n    }\n  }\n}\n\nquery PartnerToolCall($id: ID!) {\n  toolCall(id: $id) {\n    id\n    runId\n    correlationId\n    toolName\n    action\n    status\n    riskLevel\n    input\n    output\n    errorCode\n    errorText\n    durationMs\n    costCents\n    createdAt\n    updatedAt\n  }\n}\n\nquery PartnerRunToolCalls($runId: ID!, $first: Int = 50, $after: String) {\n  run(id: $runId) {\n    id\n    status\n    pendingApprovalCount\n  }\n  toolCalls(filter: {runId: $runId}, first: $first, after: $after) {\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      node {\n        id\n        toolName\n        action\n        status\n        errorCode\n        createdAt\n      }\n    }\n  }\n}": typeof types.PartnerViewerDocument,
};
const documents: Documents = {
    "query PartnerViewer {\n  viewer {\n    role\n    apiKeyId\n    org {\n      id\n      name\n    }\n  }\n}\n\nquery PartnerRuns($filter: RunFilter, $first: Int = 20, $after: String) {\n  runs(filter: $filter, first: $first, after: $after) {\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        id\n        status\n        specialistId\n        correlationId\n        pendingApprovalCount\n        toolCostCents\n        createdAt\n        completedAt\n      }\n    }\n  }\n}\n\nquery PartnerToolCall($id: ID!) {\n  toolCall(id: $id) {\n    id\n    runId\n    correlationId\n    toolName\n    action\n    status\n    riskLevel\n    input\n    output\n    errorCode\n    errorText\n    durationMs\n    costCents\n    createdAt\n    updatedAt\n  }\n}\n\nquery PartnerRunToolCalls($runId: ID!, $first: Int = 50, $after: String) {\n  run(id: $runId) {\n    id\n    status\n    pendingApprovalCount\n  }\n  toolCalls(filter: {runId: $runId}, first: $first, after: $after) {\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      node {\n        id\n        toolName\n        action\n        status\n        errorCode\n        createdAt\n      }\n    }\n  }\n}": types.PartnerViewerDocument,
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
export function graphql(source: "query PartnerViewer {\n  viewer {\n    role\n    apiKeyId\n    org {\n      id\n      name\n    }\n  }\n}\n\nquery PartnerRuns($filter: RunFilter, $first: Int = 20, $after: String) {\n  runs(filter: $filter, first: $first, after: $after) {\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        id\n        status\n        specialistId\n        correlationId\n        pendingApprovalCount\n        toolCostCents\n        createdAt\n        completedAt\n      }\n    }\n  }\n}\n\nquery PartnerToolCall($id: ID!) {\n  toolCall(id: $id) {\n    id\n    runId\n    correlationId\n    toolName\n    action\n    status\n    riskLevel\n    input\n    output\n    errorCode\n    errorText\n    durationMs\n    costCents\n    createdAt\n    updatedAt\n  }\n}\n\nquery PartnerRunToolCalls($runId: ID!, $first: Int = 50, $after: String) {\n  run(id: $runId) {\n    id\n    status\n    pendingApprovalCount\n  }\n  toolCalls(filter: {runId: $runId}, first: $first, after: $after) {\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      node {\n        id\n        toolName\n        action\n        status\n        errorCode\n        createdAt\n      }\n    }\n  }\n}"): (typeof documents)["query PartnerViewer {\n  viewer {\n    role\n    apiKeyId\n    org {\n      id\n      name\n    }\n  }\n}\n\nquery PartnerRuns($filter: RunFilter, $first: Int = 20, $after: String) {\n  runs(filter: $filter, first: $first, after: $after) {\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        id\n        status\n        specialistId\n        correlationId\n        pendingApprovalCount\n        toolCostCents\n        createdAt\n        completedAt\n      }\n    }\n  }\n}\n\nquery PartnerToolCall($id: ID!) {\n  toolCall(id: $id) {\n    id\n    runId\n    correlationId\n    toolName\n    action\n    status\n    riskLevel\n    input\n    output\n    errorCode\n    errorText\n    durationMs\n    costCents\n    createdAt\n    updatedAt\n  }\n}\n\nquery PartnerRunToolCalls($runId: ID!, $first: Int = 50, $after: String) {\n  run(id: $runId) {\n    id\n    status\n    pendingApprovalCount\n  }\n  toolCalls(filter: {runId: $runId}, first: $first, after: $after) {\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      node {\n        id\n        toolName\n        action\n        status\n        errorCode\n        createdAt\n      }\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;