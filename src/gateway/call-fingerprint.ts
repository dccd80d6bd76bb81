import { createHash } from 'node:crypto';
import { canonicalJson } from '../ledger/canonical-json';

/** What makes two requests the same call: its run, tool, action and params. */
export interface CallContent {
  runId: string;
  toolName: string;
  action: string;
  params: unknown;
}

/**
 * A call's identity is its content (ARCHITECTURE.md, "Call identity"). Every idempotency key
 * is stored with the fingerprint of the call it created: the same key and fingerprint replay,
 * the same key with another fingerprint is IDEMPOTENCY_KEY_REUSED. The params are taken in the
 * ledger's canonical JSON, so key order never makes two calls of one.
 */
export function callFingerprint(call: CallContent): string {
  return createHash('sha256')
    .update(canonicalJson(['toolgate/call/v1', call.runId, call.toolName, call.action, call.params ?? null]))
    .digest('base64url');
}
