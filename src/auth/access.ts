import type { Role } from './roles';

/**
 * Which roles may use which part of the API, in one table. Resolvers name a row with
 * `@Authorized(...ACCESS.x)`; the auth checker turns a mismatch into FORBIDDEN.
 */
export const ACCESS = {
  /** viewer, tool catalog */
  anyRole: ['admin', 'expert', 'client', 'partner', 'agent'],
  /** runs and tool calls */
  runs: ['admin', 'expert', 'client', 'partner', 'agent'],
  /** the approval queue */
  approvals: ['admin', 'expert', 'client'],
  /** the audit ledger and policy decisions */
  audit: ['admin', 'expert'],
  /** configuration of the org */
  admin: ['admin'],
} satisfies Record<string, Role[]>;
