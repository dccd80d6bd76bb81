// A partner's typed Toolgate client: operations from the partner kit (gql/partner/), sent by
// document id only. Run: TOOLGATE_URL=http://localhost:4000/graphql TOOLGATE_KEY=<partner key>
//   node examples/partner-client.mts         (Node 22.18+ strips the types; or compile with tsc)
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { PartnerRunToolCallsDocument, PartnerRunsDocument, PartnerViewerDocument } from '../gql/partner/graphql.ts';

const url = process.env.TOOLGATE_URL ?? 'http://localhost:4000/graphql';
const key = process.env.TOOLGATE_KEY ?? '';

/** One persisted operation: its id (`sha256:<hex>`, embedded by codegen), never its text. */
async function send<R, V>(document: TypedDocumentNode<R, V>, variables: V): Promise<R> {
  const documentId = (document as { __meta__?: { hash?: string } }).__meta__?.hash;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ documentId, variables }),
  });
  const body = (await response.json()) as { data?: R; errors?: { message: string; extensions?: { code?: string } }[] };
  if (body.errors?.length) throw new Error(body.errors.map((e) => `${e.extensions?.code}: ${e.message}`).join('; '));
  return body.data as R;
}

const { viewer } = await send(PartnerViewerDocument, {});
console.log(`signed in to ${viewer.org.name} as ${viewer.role}`);
const { runs } = await send(PartnerRunsDocument, { first: 5 });
console.log(`${runs.totalCount} run(s)`);
for (const { node } of runs.edges) {
  const { toolCalls } = await send(PartnerRunToolCallsDocument, { runId: node.id });
  const calls = toolCalls.edges.map((edge) => `${edge.node.toolName}.${edge.node.action}=${edge.node.status}`);
  console.log(`${node.id} ${node.status} ${calls.join(' ') || '(no tool calls)'}`);
}
