import { VendorHttpError, VendorProtocolError, type VendorAction } from '../vendor-handler';
import { FREE_READ, singleIdInput } from '../input-schema';
import { shopifyGraphql, toGid } from './shopify.transport';

export interface OrderLookupInput {
  orderId: string;
}

export interface ShopifyAddress {
  name: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  province: string | null;
  provinceCode: string | null;
  zip: string | null;
  country: string | null;
  countryCode: string | null;
}

export interface OrderLookupResult {
  orderId: string;
  orderNumber: string;
  status: 'open' | 'closed' | 'cancelled';
  financialStatus: string | null;
  fulfillmentStatus: string;
  trackingNumbers: string[];
  trackingCompany: string | null;
  items: { name: string; quantity: number; sku: string | null }[];
  customerEmail: string | null;
  shippingAddress: ShopifyAddress | null;
  createdAt: string;
}

/**
 * Order by name (the number the customer sees, `#12345`) through the `orders` search, and,
 * for a long numeric id or an Order gid, by id, in one request.
 * https://shopify.dev/docs/api/admin-graphql/2025-07/queries/orders (filter `name`)
 * Page sizes keep the requested cost (2 + 3 × 114 + 114 = 458 points) well under the
 * 1000-point single-query limit: https://shopify.dev/docs/api/usage/limits
 */
const ORDER_LOOKUP = `
query OrderLookup($query: String!, $byName: Boolean!, $id: ID!, $byId: Boolean!) {
  byName: orders(first: 3, query: $query) @include(if: $byName) { nodes { ...OrderFields } }
  byId: order(id: $id) @include(if: $byId) { ...OrderFields }
}
fragment OrderFields on Order {
  legacyResourceId name email createdAt cancelledAt closed
  displayFinancialStatus displayFulfillmentStatus
  fulfillments(first: 10) { status trackingInfo(first: 5) { number company } }
  lineItems(first: 50) { nodes { name quantity sku } }
  shippingAddress { name address1 address2 city province provinceCode zip country countryCodeV2 }
}`;

interface WireOrder {
  legacyResourceId: string;
  name: string;
  email: string | null;
  createdAt: string;
  cancelledAt: string | null;
  closed: boolean;
  displayFinancialStatus: string | null;
  displayFulfillmentStatus: string;
  fulfillments: { status: string; trackingInfo: { number: string | null; company: string | null }[] }[];
  lineItems: { nodes: { name: string; quantity: number; sku: string | null }[] };
  shippingAddress: Record<string, string | null> | null;
}

/** OrderDisplayFinancialStatus → the REST-style lower-case value agents know. */
const FINANCIAL: Record<string, string> = {
  AUTHORIZED: 'authorized',
  EXPIRED: 'expired',
  PAID: 'paid',
  PARTIALLY_PAID: 'partially_paid',
  PARTIALLY_REFUNDED: 'partially_refunded',
  PENDING: 'pending',
  REFUNDED: 'refunded',
  VOIDED: 'voided',
};

/** OrderDisplayFulfillmentStatus (OPEN is the legacy spelling of UNFULFILLED). */
const FULFILLMENT: Record<string, string> = {
  FULFILLED: 'fulfilled',
  IN_PROGRESS: 'in_progress',
  ON_HOLD: 'on_hold',
  OPEN: 'unfulfilled',
  PARTIALLY_FULFILLED: 'partially_fulfilled',
  PENDING_FULFILLMENT: 'pending_fulfillment',
  REQUEST_DECLINED: 'request_declined',
  RESTOCKED: 'restocked',
  SCHEDULED: 'scheduled',
  UNFULFILLED: 'unfulfilled',
};

/** What the caller typed: `12345`, `#12345`, a custom name (`SO-1001`), a long id or a gid. */
export function parseOrderRef(raw: string): { name: string | null; id: string | null } {
  const value = raw.trim();
  const gid = /^gid:\/\/shopify\/Order\/(\d{1,20})$/.exec(value);
  if (gid) return { name: null, id: toGid('Order', gid[1]) };
  const digits = value.replace(/^#/, '');
  if (/^\d{1,20}$/.test(digits)) return { name: `#${digits}`, id: digits.length >= 8 ? toGid('Order', digits) : null };
  return { name: value.length > 0 ? value : null, id: null };
}

const sameName = (a: string, b: string) => a.replace(/^#/, '').toLowerCase() === b.replace(/^#/, '').toLowerCase();
const quoted = (value: string) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

export const orderLookupAction: VendorAction<OrderLookupInput, OrderLookupResult> = {
  toolName: 'order_lookup',
  action: 'lookup',
  description: 'Look up a Shopify order: status, fulfillment status, tracking numbers and items.',
  inputSchema: singleIdInput('orderId', 'The order number, e.g. 12345'),
  ...FREE_READ,
  describeResult:
    '{ orderId, orderNumber ("#12345"), status: open|closed|cancelled, financialStatus (paid, pending, refunded, …), ' +
    'fulfillmentStatus (fulfilled, unfulfilled, partially_fulfilled, …), trackingNumbers: string[], trackingCompany, ' +
    'items: [{ name, quantity, sku }], customerEmail, shippingAddress { name, address1, address2, city, province, ' +
    'provinceCode, zip, country, countryCode } | null, createdAt }',
  async execute(input, ctx) {
    const ref = parseOrderRef(String(input.orderId ?? ''));
    if (!ref.name && !ref.id) throw new VendorHttpError(404);
    const data = await shopifyGraphql<{ byName?: { nodes: WireOrder[] }; byId?: WireOrder | null }>(ctx, ORDER_LOOKUP, {
      query: ref.name ? `name:${quoted(ref.name)}` : '',
      byName: ref.name !== null,
      id: ref.id ?? toGid('Order', '0'),
      byId: ref.id !== null,
    });
    const byName = ref.name ? data.byName?.nodes?.find((o) => typeof o?.name === 'string' && sameName(o.name, ref.name!)) : undefined;
    const order = byName ?? data.byId ?? null;
    if (!order) throw new VendorHttpError(404);
    return normalizeOrder(order);
  },
};

function normalizeOrder(o: WireOrder): OrderLookupResult {
  if (typeof o.legacyResourceId !== 'string' || typeof o.name !== 'string' || !Array.isArray(o.fulfillments)) {
    throw new VendorProtocolError(200);
  }
  const shipped = o.fulfillments.filter((f) => f.status === 'SUCCESS');
  const tracking = shipped.flatMap((f) => f.trackingInfo ?? []);
  return {
    orderId: o.legacyResourceId,
    orderNumber: o.name,
    status: o.cancelledAt ? 'cancelled' : o.closed ? 'closed' : 'open',
    financialStatus: o.displayFinancialStatus ? (FINANCIAL[o.displayFinancialStatus] ?? 'unknown') : null,
    fulfillmentStatus: FULFILLMENT[o.displayFulfillmentStatus] ?? 'unknown',
    trackingNumbers: [...new Set(tracking.map((t) => t.number).filter((n): n is string => typeof n === 'string' && n !== ''))],
    trackingCompany: tracking.find((t) => typeof t.company === 'string' && t.company !== '')?.company ?? null,
    items: (o.lineItems?.nodes ?? []).map((item) => ({
      name: String(item.name),
      quantity: Number(item.quantity),
      sku: typeof item.sku === 'string' && item.sku !== '' ? item.sku : null,
    })),
    customerEmail: typeof o.email === 'string' ? o.email : null,
    shippingAddress: o.shippingAddress ? normalizeAddress(o.shippingAddress) : null,
    createdAt: String(o.createdAt),
  };
}

function normalizeAddress(a: Record<string, string | null>): ShopifyAddress {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return {
    name: text(a.name),
    address1: text(a.address1),
    address2: text(a.address2),
    city: text(a.city),
    province: text(a.province),
    provinceCode: text(a.provinceCode),
    zip: text(a.zip),
    country: text(a.country),
    countryCode: text(a.countryCodeV2),
  };
}
