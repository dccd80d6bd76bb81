import type { Role } from './roles';

/** Who is calling: resolved from the API key, the only source of org scope. */
export interface Caller {
  orgId: string;
  role: Role;
  /** The API key; null only for Toolgate's own agent runtime acting for a run. */
  keyId: string | null;
}

/** The caller the built-in agent runtime uses for a run's tool calls. */
export const runtimeCaller = (orgId: string): Caller => ({ orgId, role: 'agent', keyId: null });
