import type { Role } from '../auth/roles';
import type { IdentityBinding, RoleMap } from './identity-binding.entity';

/** The roles a person can be given, in the order a choice falls on when several match. */
export const PERSON_ROLES = ['admin', 'expert', 'client'] as const satisfies readonly Role[];
export type PersonRole = (typeof PERSON_ROLES)[number];

type Claims = Record<string, unknown>;
type Mapping = Pick<IdentityBinding, 'roleClaim' | 'roleMap' | 'tenantClaim' | 'tenantValue'>;

/** A claim's values as strings: a string, or the strings of an array (groups). */
function claimValues(claims: Claims, name: string): string[] {
  const value = claims[name];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** The person's groups as Toolgate keeps them: the role claim's values (at most 200, each at most 256 characters). */
export function groupsOf(binding: Pick<IdentityBinding, 'roleClaim'>, claims: Claims): string[] {
  return claimValues(claims, binding.roleClaim)
    .filter((value) => value.length > 0 && value.length <= 256)
    .slice(0, 200);
}

/** Whether the person belongs to the binding's tenant (always, when the binding names none). */
export function tenantMatches(binding: Pick<IdentityBinding, 'tenantClaim' | 'tenantValue'>, claims: Claims): boolean {
  if (binding.tenantClaim === null) return true;
  return claimValues(claims, binding.tenantClaim).includes(binding.tenantValue ?? '');
}

/** Every role the person's claim values give them under the org's mapping; none: they get nothing. */
export function mappedRoles(binding: Mapping, claims: Claims): PersonRole[] {
  if (!tenantMatches(binding, claims)) return [];
  const values = new Set(claimValues(claims, binding.roleClaim));
  const map: RoleMap = binding.roleMap;
  return PERSON_ROLES.filter((role) => (map[role] ?? []).some((value) => values.has(value)));
}

/** The role a person acts in: the one asked for when it is theirs, else the first they have; null when they have none (or not the one asked for). */
export function chooseRole(roles: readonly PersonRole[], asked: string | null | undefined): PersonRole | null {
  if (asked) return roles.find((role) => role === asked) ?? null;
  return roles[0] ?? null;
}

/** The scopes of an OAuth access token (`scope`, space-separated, or `scp`, an array). */
export function tokenScopes(claims: Claims): string[] {
  if (typeof claims.scope === 'string') return claims.scope.split(' ').filter(Boolean);
  return claimValues(claims, 'scp');
}
