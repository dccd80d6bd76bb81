import type { VendorHandler } from '../vendor-handler';
import { getStatusAction } from './get-status.action';

/** Jumio's data centers (amer-1, emea-1, apac-1, …). Anything else could point the secret elsewhere. */
const DATACENTER = /^[a-z]{2,8}-\d{1,2}$/;

function datacenter(credentials: Record<string, unknown>): string {
  const value = credentials.datacenter ?? 'amer-1';
  if (typeof value !== 'string' || !DATACENTER.test(value)) throw new Error('jumio credential datacenter is invalid');
  return value;
}

/**
 * Jumio KYX: identity verification status through the Retrieval API, authenticated with
 * OAuth2 client credentials. Credential config: { clientId, clientSecret, datacenter? }
 * where datacenter is amer-1 (default), emea-1 or apac-1.
 */
export const jumioHandler: VendorHandler = {
  vendor: 'jumio',
  credentialSpec: { integrationType: 'jumio', required: ['clientId', 'clientSecret'] },
  endpoints: {
    auth: { env: 'JUMIO_AUTH_URL', production: (c) => `https://auth.${datacenter(c)}.jumio.ai` },
    retrieval: { env: 'JUMIO_RETRIEVAL_URL', production: (c) => `https://retrieval.${datacenter(c)}.jumio.ai` },
  },
  actions: [getStatusAction],
};
