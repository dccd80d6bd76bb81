import { VendorHttpError, VendorProtocolError, type VendorAction } from '../vendor-handler';
import { FREE_READ, singleIdInput } from '../input-schema';
import { numericIdOf, shopifyGraphql, toGid } from './shopify.transport';

export interface GetProductInput {
  productId: string;
}

export interface ProductVariantResult {
  id: string;
  title: string;
  sku: string | null;
  price: string;
  inventoryQuantity: number | null;
}

export interface GetProductResult {
  productId: string;
  title: string;
  status: 'active' | 'archived' | 'draft' | 'unknown';
  variants: ProductVariantResult[];
  /** The lowest variant price, as Shopify writes it (e.g. "199.00"); null without variants. */
  price: string | null;
  totalInventory: number | null;
}

/** https://shopify.dev/docs/api/admin-graphql/2025-07/queries/product */
const GET_PRODUCT = `
query GetProduct($id: ID!) {
  product(id: $id) {
    legacyResourceId title status totalInventory
    variants(first: 100) { nodes { legacyResourceId title sku price inventoryQuantity } }
  }
}`;

interface WireProduct {
  legacyResourceId: string;
  title: string;
  status: string;
  totalInventory: number | null;
  variants: {
    nodes: { legacyResourceId: string; title: string; sku: string | null; price: string; inventoryQuantity: number | null }[];
  };
}

const STATUS: Record<string, GetProductResult['status']> = { ACTIVE: 'active', ARCHIVED: 'archived', DRAFT: 'draft' };

export const getProductAction: VendorAction<GetProductInput, GetProductResult> = {
  toolName: 'shopify_query',
  action: 'get_product',
  description: 'Get a Shopify product: title, variants, price and inventory.',
  inputSchema: singleIdInput('productId', 'The product id'),
  ...FREE_READ,
  describeResult:
    '{ productId, title, status: active|archived|draft, variants: [{ id, title, sku, price, inventoryQuantity }], ' +
    'price (lowest variant price as a string, e.g. "199.00"), totalInventory }',
  async execute(input, ctx) {
    const id = numericIdOf('Product', String(input.productId ?? ''));
    if (!id) throw new VendorHttpError(404);
    const data = await shopifyGraphql<{ product: WireProduct | null }>(ctx, GET_PRODUCT, { id: toGid('Product', id) });
    if (!data.product) throw new VendorHttpError(404);
    return normalizeProduct(data.product);
  },
};

function normalizeProduct(p: WireProduct): GetProductResult {
  if (typeof p.legacyResourceId !== 'string' || !Array.isArray(p.variants?.nodes)) throw new VendorProtocolError(200);
  const variants = p.variants.nodes.map((v) => ({
    id: String(v.legacyResourceId),
    title: String(v.title),
    sku: typeof v.sku === 'string' && v.sku !== '' ? v.sku : null,
    price: String(v.price),
    inventoryQuantity: typeof v.inventoryQuantity === 'number' ? v.inventoryQuantity : null,
  }));
  const priced = variants.filter((v) => Number.isFinite(Number(v.price)));
  const lowest = priced.reduce<ProductVariantResult | null>((min, v) => (!min || Number(v.price) < Number(min.price) ? v : min), null);
  return {
    productId: p.legacyResourceId,
    title: String(p.title),
    status: STATUS[p.status] ?? 'unknown',
    variants,
    price: lowest ? lowest.price : null,
    totalInventory: typeof p.totalInventory === 'number' ? p.totalInventory : null,
  };
}
