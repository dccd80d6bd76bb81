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
import { createMcpSandbox } from '../upstream/mcp.sandbox';

/** A vendor as Toolgate knows it: its handler (and with it its catalog actions), and its sandbox if it has one. */
export interface VendorRegistration {
  handler: VendorHandler;
  sandbox?: {
    /** A fresh sandbox (its demo data is per instance) whose `vendor` is the handler's. */
    create(): VendorSandbox;
    /** The credential config it accepts; the demo org is seeded with it. */
    credentials: Record<string, unknown>;
  };
}

/**
 * Every vendor. Adding a vendor is adding its folder and one line here (docs/architecture.md,
 * "Adding a vendor"): the catalog, the executor's handlers, the sandboxes, the demo
 * credentials and the accepted endpoint variables are all derived from this list.
 */
export const VENDORS: readonly VendorRegistration[] = [
  { handler: shopifyHandler, sandbox: { create: createShopifySandbox, credentials: shopifyDemoCredentials } },
  { handler: amazonHandler, sandbox: { create: createAmazonSandbox, credentials: amazonDemoCredentials } },
  { handler: jumioHandler, sandbox: { create: createJumioSandbox, credentials: jumioDemoCredentials } },
  { handler: nangoHandler, sandbox: { create: createNangoSandbox, credentials: nangoDemoCredentials } },
];

export const handlersOf = (vendors: readonly VendorRegistration[]): VendorHandler[] => vendors.map((v) => v.handler);

/** Every vendor handler, in registration order (the catalog's order). */
export const VENDOR_HANDLERS: readonly VendorHandler[] = handlersOf(VENDORS);

/** Fresh sandboxes (their demo data is per instance), one per vendor that has one. */
export function createVendorSandboxes(vendors: readonly VendorRegistration[] = VENDORS): VendorSandbox[] {
  return vendors.flatMap(({ handler, sandbox }) => {
    if (!sandbox) return [];
    const created = sandbox.create();
    // The executor sends a handler to the sandbox URL of its own vendor name.
    if (created.vendor !== handler.vendor) throw new Error(`the sandbox of ${handler.vendor} is named ${created.vendor}`);
    return [created];
  });
}

/**
 * What the sandbox server serves: the vendors' sandboxes and the upstream MCP sandbox (at
 * `<sandbox url>/mcp`; an MCP server is registered by URL, not in VENDORS).
 */
export function createSandboxes(vendors: readonly VendorRegistration[] = VENDORS): VendorSandbox[] {
  return [...createVendorSandboxes(vendors), createMcpSandbox()];
}

/** The credentials each sandbox accepts, by integration type. */
export function sandboxCredentials(vendors: readonly VendorRegistration[]): Record<string, Record<string, unknown>> {
  return Object.fromEntries(vendors.flatMap((v) => (v.sandbox ? [[v.handler.credentialSpec.integrationType, v.sandbox.credentials]] : [])));
}

/** The credentials each sandbox accepts, by integration type; the demo org is seeded with them. */
export const SANDBOX_CREDENTIALS: Record<string, Record<string, unknown>> = sandboxCredentials(VENDORS);

/**
 * The environment variables that override an endpoint (each `VendorEndpoint.env`). The
 * configuration declares each in its table (src/config/settings-model.ts, without importing
 * this folder); test/unit/config-variables.test.ts keeps the two in step.
 */
export function endpointVariables(handlers: readonly VendorHandler[]): string[] {
  return [...new Set(handlers.flatMap((h) => Object.values(h.endpoints).map((e) => e.env)))];
}

export const VENDOR_URL_VARIABLES: readonly string[] = endpointVariables(VENDOR_HANDLERS);
