// The parsers of one variable's text (the setting builders of setting.ts wrap them): a bad value is a ConfigError naming it.
import type { KeyObject } from 'node:crypto';
import type { MasterKey } from '../credentials/keyring';
import { parseSigningKey } from '../ledger/signing-key';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type Env = Record<string, string | undefined>;

export function httpUrl(env: Env, name: string): string | undefined {
  const value = nonEmpty(env[name]);
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error();
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL`);
  }
  return value.replace(/\/+$/, '');
}

/** A keyring `v2:<key>,v1:<key>` (MASTER_ENCRYPTION_KEYS); undefined when unset. */
export function masterKeyring(env: Env, name: string): MasterKey[] | undefined {
  const ring = nonEmpty(env[name]);
  if (!ring) return undefined;
  const keys = ring.split(',').map((entry) => {
    const match = /^v?(\d{1,6}):(.+)$/.exec(entry.trim());
    if (!match) throw new ConfigError(`${name} must look like v2:<key>,v1:<key>`);
    return { version: Number(match[1]), key: parseMasterKey(match[2])! };
  });
  const versions = new Set(keys.map((k) => k.version));
  if (versions.size !== keys.length || keys.some((k) => k.version < 1)) {
    throw new ConfigError(`${name} has a repeated or zero version`);
  }
  return keys;
}

/** Accepts 64 hex characters or base64 of exactly 32 bytes. */
export function parseMasterKey(raw: string | undefined): Buffer | undefined {
  const value = nonEmpty(raw);
  if (!value) return undefined;
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  const decoded = Buffer.from(value, 'base64');
  if (decoded.length === 32 && /^[A-Za-z0-9+/=_-]+$/.test(value)) return decoded;
  throw new ConfigError('MASTER_ENCRYPTION_KEY must be 32 bytes: 64 hex characters or base64');
}

export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = nonEmpty(env[name])?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** An Ed25519 private key (ledger checkpoints), PEM or base64 PKCS#8. */
export function signingKey(env: Env, name: string): KeyObject | undefined {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return undefined;
  try {
    return parseSigningKey(raw);
  } catch (error) {
    throw new ConfigError(
      `${name} must be an Ed25519 private key as PEM or base64 PKCS#8 (openssl genpkey -algorithm ed25519): ${(error as Error).message}`,
    );
  }
}
