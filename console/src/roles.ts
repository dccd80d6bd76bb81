import type { ApprovalKind, Role } from '../../gql/graphql';

/** What the console shows a role: the API's access matrix (src/auth/access.ts), as views. */
export interface Capabilities {
  inbox: boolean;
  /** Which approvals the inbox lists: an expert's and a client's own kind, all for an admin. */
  inboxKind: ApprovalKind | null;
  /** May approve or reject (admins read the queue but do not approve). */
  resolves: boolean;
  /** Policy decisions, review items, the ledger, the rules. */
  audit: boolean;
  approvals: boolean;
  editsPolicy: boolean;
}

export function capabilitiesOf(role: Role): Capabilities {
  const approvals = role === 'admin' || role === 'expert' || role === 'client';
  return {
    inbox: approvals,
    inboxKind: role === 'expert' ? 'expert' : role === 'client' ? 'client' : null,
    resolves: role === 'expert' || role === 'client',
    audit: role === 'admin' || role === 'expert',
    approvals,
    editsPolicy: role === 'admin',
  };
}
