import type { VendorHandler } from './vendor-handler';
import type { VendorSandbox } from './sandbox/sandbox-server';
import { shopifyHandler } from './shopify/shopify.handler';
import { amazonHandler } from './amazon/amazon.handler';
import { jumioHandler } from './jumio/jumio.handler';
import { nangoHandler } from './nango/nango.handler';
import { createShopifySandbox, shopifyDemoCredentials } from './shopify/shopify.sandbox';
import { createAmazonSandbox, amazonDemoCredentials } from './amazon/amazon.sandbox';
import { createJumioSandbox, jumioDemoCredentials } from './jumio/jumio.sandbox';
import { createNangoSandbox, nangoDemoCredentials } from './nango/nango.sandbox';

/** Every vendor handler; adding a vendor is adding its folder and a line here. */
export const VENDOR_HANDLERS: readonly VendorHandler[] = [shopifyHandler, amazonHandler, jumioHandler, nangoHandler];

/** Fresh sandboxes (their demo data is per instance), one per vendor. */
export function createVendorSandboxes(): VendorSandbox[] {
  return [createShopifySandbox(), createAmazonSandbox(), createJumioSandbox(), createNangoSandbox()];
}

/** The credentials each sandbox accepts, by integration type; the demo org is seeded with them. */
export const SANDBOX_CREDENTIALS: Record<string, Record<string, unknown>> = {
  shopify: shopifyDemoCredentials,
  amazon: amazonDemoCredentials,
  jumio: jumioDemoCredentials,
  nango: nangoDemoCredentials,
};
