/** The roles an API key can have. */
export const ROLES = ['admin', 'expert', 'client', 'partner', 'agent'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
