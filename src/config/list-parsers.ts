// The parsers of the comma-separated settings (CIDRs, origins, roles, failpoints).
import { ROLES, type Role } from '../auth/roles';
import { parseCidr } from '../egress/address-policy';
import { ConfigError, type Env, nonEmpty } from './env';

/** A comma-separated list of CIDRs (`10.0.0.0/8`, `::1/128`, or single addresses); `none` for the empty list. */
export function cidrList(env: Env, name: string, fallback: string[]): string[] {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  if (raw.toLowerCase() === 'none') return [];
  return raw.split(',').map((part) => {
    try {
      parseCidr(part);
      return part.trim();
    } catch {
      throw new ConfigError(`${name} must be a comma-separated list of CIDRs (e.g. 10.0.0.0/8,fd12::/16) or none, got "${part.trim()}"`);
    }
  });
}

/** A comma-separated list of origins (`https://app.example.com`), each checked and normalized. */
export function originList(env: Env, name: string): string[] {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return [];
  return raw.split(',').map((part) => {
    try {
      const url = new URL(part.trim());
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
      return url.origin;
    } catch {
      throw new ConfigError(`${name} must be a comma-separated list of http(s) origins, got "${part.trim()}"`);
    }
  });
}

/** A comma-separated list of roles; `none` for the empty list. */
export function roleList(env: Env, name: string, fallback: Role[]): Role[] {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  if (raw.toLowerCase() === 'none') return [];
  const roles = raw.split(',').map((part) => part.trim());
  for (const role of roles) {
    if (!(ROLES as readonly string[]).includes(role)) {
      throw new ConfigError(`${name} must be a comma-separated list of ${ROLES.join(', ')} (or none), got "${raw}"`);
    }
  }
  return [...new Set(roles)] as Role[];
}

/** A comma-separated list of words, blanks dropped. */
export function wordList(env: Env, name: string): string[] {
  return (nonEmpty(env[name]) ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

export const FAILPOINT_NAMES = ['after_approval', 'after_vendor_response', 'during_model_stream'] as const;

/** `name[:n]` entries: at the named point's n-th hit (default 1) the process kills itself. */
export function failpoints(env: Env, name: string): Record<string, number> {
  const raw = nonEmpty(env[name]);
  if (!raw) return {};
  const points: Record<string, number> = {};
  for (const entry of raw.split(',')) {
    const match = /^([a-z_]+)(?::(\d{1,6}))?$/.exec(entry.trim());
    if (!match || !(FAILPOINT_NAMES as readonly string[]).includes(match[1]) || (match[2] !== undefined && Number(match[2]) < 1)) {
      throw new ConfigError(`${name} must be a list of name[:n] with names ${FAILPOINT_NAMES.join(', ')}, got "${raw}"`);
    }
    points[match[1]] = match[2] ? Number(match[2]) : 1;
  }
  return points;
}
