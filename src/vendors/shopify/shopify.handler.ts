import type { VendorHandler } from '../vendor-handler';
import { getProductAction } from './get-product.action';
import { orderLookupAction } from './order-lookup.action';
import { shopifyAdminUrl } from './shopify.transport';

/**
 * Shopify (GraphQL Admin API, pinned version in shopify.transport.ts). Credential:
 * `{ shopDomain: '<shop>.myshopify.com', accessToken: 'shpat_…' }` (an Admin API access
 * token of a custom app with read_orders and read_products).
 */
export const shopifyHandler: VendorHandler = {
  vendor: 'shopify',
  credentialSpec: { integrationType: 'shopify', required: ['shopDomain', 'accessToken'] },
  endpoints: {
    admin: { env: 'SHOPIFY_ADMIN_URL', production: (credentials) => shopifyAdminUrl(credentials) },
  },
  actions: [orderLookupAction, getProductAction],
};
