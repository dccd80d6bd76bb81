import type { VendorHandler } from '../vendor-handler';
import { getCatalogItemAction } from './get-catalog-item.action';
import { getOrderAction } from './get-order.action';

/**
 * Amazon Selling Partner API (North America). Credential: `{ clientId, clientSecret }` of
 * the LWA app, the seller's `refreshToken` (`Atzr|…`) and the `marketplaceId` to read
 * (e.g. ATVPDKIKX0DER, amazon.com). Access tokens live in ctx.cache (amazon.transport.ts).
 */
export const amazonHandler: VendorHandler = {
  vendor: 'amazon',
  credentialSpec: { integrationType: 'amazon', required: ['clientId', 'clientSecret', 'refreshToken', 'marketplaceId'] },
  endpoints: {
    lwa: { env: 'AMAZON_LWA_URL', production: () => 'https://api.amazon.com' },
    spApi: { env: 'AMAZON_SP_API_URL', production: () => 'https://sellingpartnerapi-na.amazon.com' },
  },
  actions: [getOrderAction, getCatalogItemAction],
};
