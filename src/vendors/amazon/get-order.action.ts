import { VendorHttpError, VendorProtocolError, type VendorAction } from '../vendor-handler';
import { FREE_READ, singleIdInput } from '../input-schema';
import { spApiGet } from './amazon.transport';

export interface GetOrderInput {
  orderId: string;
}

export interface AmazonMoney {
  amount: string;
  currencyCode: string;
}

export interface AmazonAddress {
  name: string | null;
  addressLine1: string | null;
  addressLine2: string | null;
  city: string | null;
  stateOrRegion: string | null;
  postalCode: string | null;
  countryCode: string | null;
}

export interface GetOrderResult {
  orderId: string;
  status: string;
  purchaseDate: string;
  fulfillmentChannel: 'AFN' | 'MFN' | null;
  orderTotal: AmazonMoney | null;
  items: { asin: string; sellerSku: string | null; title: string | null; quantityOrdered: number; quantityShipped: number }[];
  shippingAddress: AmazonAddress | null;
}

/** Amazon order ids are 3-7-7 (e.g. 902-3159896-1390916); anything else cannot exist. */
const ORDER_ID = /^[0-9A-Z]{3}-\d{7}-\d{7}$/;
/** The OrderStatus values of Orders API v0. */
const ORDER_STATUSES = new Set([
  'PendingAvailability',
  'Pending',
  'Unshipped',
  'PartiallyShipped',
  'Shipped',
  'InvoiceUnconfirmed',
  'Canceled',
  'Unfulfillable',
]);
/** Order items come in pages (NextToken); a bound on how many are followed. */
const MAX_ITEM_PAGES = 10;

interface WireMoney {
  CurrencyCode?: unknown;
  Amount?: unknown;
}
interface WireOrder {
  AmazonOrderId?: unknown;
  PurchaseDate?: unknown;
  OrderStatus?: unknown;
  FulfillmentChannel?: unknown;
  OrderTotal?: WireMoney;
  ShippingAddress?: Record<string, unknown>;
}
interface WireOrderItem {
  ASIN?: unknown;
  SellerSKU?: unknown;
  Title?: unknown;
  QuantityOrdered?: unknown;
  QuantityShipped?: unknown;
}
interface WireOrderItems {
  OrderItems?: WireOrderItem[];
  NextToken?: unknown;
}

export const getOrderAction: VendorAction<GetOrderInput, GetOrderResult> = {
  toolName: 'amazon_query',
  action: 'get_order',
  description: 'Get an Amazon marketplace order and its items (SP-API Orders).',
  inputSchema: singleIdInput('orderId', 'The Amazon order id, e.g. 902-3159896-1390916'),
  ...FREE_READ,
  describeResult:
    '{ orderId, status (SP-API OrderStatus: Pending, Unshipped, PartiallyShipped, Shipped, Canceled, …), purchaseDate, ' +
    'fulfillmentChannel: AFN|MFN|null, orderTotal: { amount, currencyCode } | null, items: [{ asin, sellerSku, title, ' +
    'quantityOrdered, quantityShipped }], shippingAddress { name, addressLine1, addressLine2, city, stateOrRegion, ' +
    'postalCode, countryCode } | null (name and street need a Restricted Data Token and are usually null) }',
  async execute(input, ctx) {
    const orderId = String(input.orderId ?? '')
      .trim()
      .toUpperCase();
    if (!ORDER_ID.test(orderId)) throw new VendorHttpError(404);
    const base = `/orders/v0/orders/${encodeURIComponent(orderId)}`;

    // https://developer-docs.amazon.com/sp-api/docs/orders-api-v0-reference#getorder
    const order = (await spApiGet<{ payload?: WireOrder }>(ctx, base)).payload;
    if (!order || typeof order !== 'object' || typeof order.AmazonOrderId !== 'string') throw new VendorProtocolError(200);

    // https://developer-docs.amazon.com/sp-api/docs/orders-api-v0-reference#getorderitems
    const items: WireOrderItem[] = [];
    let nextToken: string | null = null;
    for (let page = 0; page < MAX_ITEM_PAGES; page += 1) {
      const query: Record<string, string> = nextToken ? { NextToken: nextToken } : {};
      const payload = (await spApiGet<{ payload?: WireOrderItems }>(ctx, `${base}/orderItems`, query)).payload;
      if (!payload || !Array.isArray(payload.OrderItems)) throw new VendorProtocolError(200);
      items.push(...payload.OrderItems);
      nextToken = typeof payload.NextToken === 'string' && payload.NextToken !== '' ? payload.NextToken : null;
      if (!nextToken) break;
    }
    return normalizeOrder(order, items);
  },
};

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function normalizeOrder(o: WireOrder, items: WireOrderItem[]): GetOrderResult {
  const status = typeof o.OrderStatus === 'string' && ORDER_STATUSES.has(o.OrderStatus) ? o.OrderStatus : 'Unknown';
  const total = o.OrderTotal;
  const address = o.ShippingAddress;
  return {
    orderId: String(o.AmazonOrderId),
    status,
    purchaseDate: String(o.PurchaseDate ?? ''),
    fulfillmentChannel: o.FulfillmentChannel === 'AFN' || o.FulfillmentChannel === 'MFN' ? o.FulfillmentChannel : null,
    orderTotal:
      total && typeof total.Amount === 'string' && typeof total.CurrencyCode === 'string'
        ? { amount: total.Amount, currencyCode: total.CurrencyCode }
        : null,
    items: items.map((item) => {
      if (typeof item?.ASIN !== 'string') throw new VendorProtocolError(200);
      return {
        asin: item.ASIN,
        sellerSku: text(item.SellerSKU),
        title: text(item.Title),
        quantityOrdered: count(item.QuantityOrdered),
        quantityShipped: count(item.QuantityShipped),
      };
    }),
    shippingAddress:
      address && typeof address === 'object'
        ? {
            name: text(address.Name),
            addressLine1: text(address.AddressLine1),
            addressLine2: text(address.AddressLine2),
            city: text(address.City),
            stateOrRegion: text(address.StateOrRegion),
            postalCode: text(address.PostalCode),
            countryCode: text(address.CountryCode),
          }
        : null,
  };
}
