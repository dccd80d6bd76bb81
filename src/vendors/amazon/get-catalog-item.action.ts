import { VendorHttpError, VendorProtocolError, type VendorAction } from '../vendor-handler';
import { FREE_READ } from '../input-schema';
import { spApiGet } from './amazon.transport';

export interface GetCatalogItemInput {
  asin: string;
}

export interface GetCatalogItemResult {
  asin: string;
  title: string | null;
  brand: string | null;
  marketplaceId: string;
}

/** An ASIN is 10 letters and digits (books: their ISBN-10). */
const ASIN = /^[0-9A-Z]{10}$/;
const CATALOG_VERSION = '2022-04-01';

interface WireSummary {
  marketplaceId?: unknown;
  itemName?: unknown;
  brand?: unknown;
}
interface WireItem {
  asin?: unknown;
  summaries?: WireSummary[];
}

export const getCatalogItemAction: VendorAction<GetCatalogItemInput, GetCatalogItemResult> = {
  toolName: 'amazon_query',
  action: 'get_catalog_item',
  description: "Get an Amazon catalog item (title, brand) by ASIN in the seller's marketplace (SP-API Catalog Items).",
  inputSchema: {
    type: 'object',
    properties: {
      asin: { type: 'string', pattern: '^[A-Za-z0-9]{10}$', description: 'The ASIN, e.g. B07FZ8S74R' },
    },
    required: ['asin'],
    additionalProperties: false,
  },
  ...FREE_READ,
  describeResult: '{ asin, title, brand, marketplaceId } (title and brand null when the marketplace has no summary)',
  async execute(input, ctx) {
    const asin = String(input.asin ?? '')
      .trim()
      .toUpperCase();
    if (!ASIN.test(asin)) throw new VendorHttpError(404);
    const marketplaceId = ctx.credentials.marketplaceId;
    if (typeof marketplaceId !== 'string' || marketplaceId === '') throw new Error('amazon credential marketplaceId is missing');

    // https://developer-docs.amazon.com/sp-api/docs/catalog-items-api-v2022-04-01-reference#getcatalogitem
    // (v2022-04-01 answers the Item itself, without the v0 `payload` wrapper)
    const item = await spApiGet<WireItem>(ctx, `/catalog/${CATALOG_VERSION}/items/${encodeURIComponent(asin)}`, {
      marketplaceIds: marketplaceId,
      includedData: 'summaries',
    });
    if (!item || typeof item !== 'object' || typeof item.asin !== 'string') throw new VendorProtocolError(200);
    const summary = Array.isArray(item.summaries) ? item.summaries.find((s) => s?.marketplaceId === marketplaceId) : undefined;
    return {
      asin: item.asin,
      title: typeof summary?.itemName === 'string' ? summary.itemName : null,
      brand: typeof summary?.brand === 'string' ? summary.brand : null,
      marketplaceId,
    };
  },
};
