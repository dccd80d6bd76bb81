import type { VendorHandler } from '../vendor-handler';
import { accountBalanceAction } from './account-balance.action';
import { sendInvoiceAction } from './send-invoice.action';

/**
 * QuickBooks Online through Nango's proxy. Credential config: { secretKey (Nango
 * environment secret key), connectionId, providerConfigKey (the Nango integration id),
 * realmId (the QuickBooks company id), itemId? (the QuickBooks item billed on invoice
 * lines; default 1, "Services") }.
 */
export const nangoHandler: VendorHandler = {
  vendor: 'nango',
  credentialSpec: { integrationType: 'nango', required: ['secretKey', 'connectionId', 'providerConfigKey', 'realmId'] },
  endpoints: {
    api: { env: 'NANGO_API_URL', production: () => 'https://api.nango.dev' },
  },
  actions: [accountBalanceAction, sendInvoiceAction],
};
