import type { Role } from './roles';

/** Who is calling: resolved from the API key, the only source of org scope. */
export interface Caller {
  orgId: string;
  role: Role;
  keyId: string;
}
