// How a log line shows a secret setting (the table's `secret` / `masked`, src/config/describe.ts).
import type { KeyObject } from 'node:crypto';
import type { MasterKey } from '../credentials/keyring';
import { keyIdOf } from '../ledger/signing-key';
import { masking } from './setting';

/** A URL with its password replaced by `***`. */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '[unparseable]';
  }
}

/** Only whether it is set. */
export const presenceAt = (field: string) => masking<string | undefined>(field, (value) => (value ? '[set]' : '[unset]'));

/** The URL with its password masked; `unset` when there is none. */
export const urlAt = (field: string, unset?: string) => masking<string | undefined>(field, (value) => (value ? maskUrl(value) : unset));

/** The key versions, never the keys. */
export const MASTER_KEYS = masking<MasterKey[]>('masterKeys', (keys) => (keys.length ? keys.map((k) => `v${k.version}`) : '[unset]'));

/** The key id, never the key. */
export const SIGNING_KEY = masking<KeyObject | undefined>('ledgerSigningKey', (key) => (key ? keyIdOf(key) : '[unset]'));
