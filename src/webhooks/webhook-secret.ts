import { randomBytes } from 'node:crypto';
import {
  openCredential,
  rewrapCredential,
  sealCredential,
  type CredentialEnvelope,
  type CredentialIdentity,
} from '../credentials/credential-envelope';
import type { MasterKeyring } from '../credentials/keyring';

/**
 * An endpoint's signing secret, in the Standard Webhooks form `whsec_<base64>` (32 random
 * bytes), sealed with the credential envelope: its own data key wrapped by the versioned
 * master key, with AAD binding the org and the endpoint, so `credentials rotate` re-wraps it
 * like any vendor credential and a sealed secret copied to another row does not open.
 */
const SECRET_PREFIX = 'whsec_';
const identity = (orgId: string, endpointId: string): CredentialIdentity => ({
  orgId,
  credentialId: endpointId,
  integrationType: 'webhook_endpoint',
});

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export function sealWebhookSecret(keyring: MasterKeyring, orgId: string, endpointId: string, secret: string): CredentialEnvelope {
  return sealCredential(keyring, identity(orgId, endpointId), { secret });
}

export function openWebhookSecret(keyring: MasterKeyring, orgId: string, endpointId: string, sealed: CredentialEnvelope): string {
  return String(openCredential(keyring, identity(orgId, endpointId), sealed).secret);
}

export function rewrapWebhookSecret(keyring: MasterKeyring, orgId: string, endpointId: string, sealed: CredentialEnvelope): CredentialEnvelope {
  return rewrapCredential(keyring, identity(orgId, endpointId), sealed);
}
