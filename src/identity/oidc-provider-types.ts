/**
 * oidc-provider's types. The package is ESM only and src/ compiles to CommonJS, so its types
 * need `resolution-mode: import` (TS1541); Biome 2.6 parses that attribute in an import type
 * but not on `import type … with`, hence these aliases.
 */
export type Configuration = import('oidc-provider', { with: { 'resolution-mode': 'import' }}).Configuration;
export type Adapter = import('oidc-provider', { with: { 'resolution-mode': 'import' }}).Adapter;
export type AdapterPayload = import('oidc-provider', { with: { 'resolution-mode': 'import' }}).AdapterPayload;
export type KoaContextWithOIDC = import('oidc-provider', { with: { 'resolution-mode': 'import' }}).KoaContextWithOIDC;
export type ResourceServer = import('oidc-provider', { with: { 'resolution-mode': 'import' }}).ResourceServer;
