/**
 * The Amazon sandbox's demo seller: its LWA app and refresh token, two orders in the
 * Orders API v0 shape and catalog items (Catalog Items 2022-04-01 summaries) for their
 * ASINs. Without a Restricted Data Token, SP-API leaves name and street out of
 * ShippingAddress; the seed does the same.
 */
export const amazonDemoCredentials = {
  clientId: 'amzn1.application-oa2-client.5d8f1c2b7e3a4f6b9c0d2e4f6a8b1c3d',
  clientSecret: 'amzn1.oa2-cs.v1.7f3e9a1c5b2d8e4f0a6c3b9d1e7f2a5c8b4d0e6f3a9c1b7d5e2f8a4c0b6d3e9f',
  refreshToken: 'Atzr|IwEBIH3kV8dq2sPZ0sandbox-demo-seller-refresh-token-9f2c4b7e1a',
  marketplaceId: 'ATVPDKIKX0DER',
} as const;

/** North American marketplaces the sandbox knows (US, CA, MX, BR). */
export const KNOWN_MARKETPLACES = new Set(['ATVPDKIKX0DER', 'A2EUQ1WTGCTBG2', 'A1AM78C64UM0Y8', 'A2Q3Y263D00KWC']);

const usd = (Amount: string) => ({ CurrencyCode: 'USD', Amount });
const orderFlags = {
  IsBusinessOrder: false,
  IsPrime: false,
  IsPremiumOrder: false,
  IsGlobalExpressEnabled: false,
  IsReplacementOrder: false,
  IsSoldByAB: false,
  IsISPU: false,
  IsAccessPointOrder: false,
  HasRegulatedItems: false,
  OrderType: 'StandardOrder',
};

export const SEED_ORDERS: Record<string, Record<string, unknown>> = {
  '902-3159896-1390916': {
    AmazonOrderId: '902-3159896-1390916',
    PurchaseDate: '2025-06-02T17:04:11Z',
    LastUpdateDate: '2025-06-04T09:12:40Z',
    OrderStatus: 'Shipped',
    FulfillmentChannel: 'MFN',
    SalesChannel: 'Amazon.com',
    ShipServiceLevel: 'Std US D2D Dom',
    OrderTotal: usd('64.97'),
    NumberOfItemsShipped: 3,
    NumberOfItemsUnshipped: 0,
    PaymentMethod: 'Other',
    PaymentMethodDetails: ['Standard'],
    MarketplaceId: 'ATVPDKIKX0DER',
    ShipmentServiceLevelCategory: 'Standard',
    EarliestShipDate: '2025-06-03T07:00:00Z',
    LatestShipDate: '2025-06-05T06:59:59Z',
    ShippingAddress: { City: 'SEATTLE', StateOrRegion: 'WA', PostalCode: '98109-5210', CountryCode: 'US' },
    ...orderFlags,
  },
  '113-5810427-6614650': {
    AmazonOrderId: '113-5810427-6614650',
    PurchaseDate: '2025-06-15T22:41:03Z',
    LastUpdateDate: '2025-06-15T22:41:03Z',
    OrderStatus: 'Pending',
    FulfillmentChannel: 'AFN',
    SalesChannel: 'Amazon.com',
    ShipServiceLevel: 'Expedited',
    NumberOfItemsShipped: 0,
    NumberOfItemsUnshipped: 1,
    PaymentMethodDetails: ['Standard'],
    MarketplaceId: 'ATVPDKIKX0DER',
    ShipmentServiceLevelCategory: 'Expedited',
    ...orderFlags,
  },
};

/**
 * An OrderItem as getOrderItems returns it: a new single-unit product, not a gift. A Pending
 * order has no prices yet, so SP-API leaves ItemPrice, ItemTax and PromotionDiscount out.
 */
function orderItem(ASIN: string, SellerSKU: string, OrderItemId: string, Title: string, ordered: number, shipped: number, price?: string) {
  return {
    ASIN,
    SellerSKU,
    OrderItemId,
    Title,
    QuantityOrdered: ordered,
    QuantityShipped: shipped,
    ProductInfo: { NumberOfItems: '1' },
    ...(price === undefined ? {} : { ItemPrice: usd(price), ItemTax: usd('0.00'), PromotionDiscount: usd('0.00') }),
    IsGift: 'false',
    ConditionId: 'New',
    ConditionSubtypeId: 'New',
    IsTransparency: false,
  };
}

export const SEED_ORDER_ITEMS: Record<string, Record<string, unknown>[]> = {
  '902-3159896-1390916': [
    orderItem('B07FZ8S74R', 'ECHO-DOT-3-CHARCOAL', '68828574383266', 'Echo Dot (3rd Gen) - Smart speaker with Alexa - Charcoal', 2, 2, '39.98'),
    orderItem('B0791TX5P5', 'FIRE-TV-STICK-4K', '68828574383267', 'Fire TV Stick 4K streaming device with Alexa Voice Remote', 1, 1, '24.99'),
  ],
  '113-5810427-6614650': [
    orderItem('B09B8V1LZ3', 'ECHO-DOT-5-CHARCOAL', '51734029114378', 'Echo Dot (5th Gen) smart speaker with Alexa - Charcoal', 1, 0),
  ],
};

const summary = (itemName: string, modelNumber: string, color: string, classificationId: string, displayName: string) => ({
  marketplaceId: 'ATVPDKIKX0DER',
  adultProduct: false,
  autographed: false,
  brand: 'Amazon',
  browseClassification: { displayName, classificationId },
  color,
  itemClassification: 'BASE_PRODUCT',
  itemName,
  manufacturer: 'Amazon',
  memorabilia: false,
  modelNumber,
  packageQuantity: 1,
  tradeInEligible: false,
  websiteDisplayGroup: 'amazon_devices_display_on_website',
  websiteDisplayGroupName: 'Amazon Devices',
});

/** ASIN → its summaries, one per marketplace. */
export const SEED_CATALOG: Record<string, Record<string, unknown>[]> = {
  B07FZ8S74R: [summary('Echo Dot (3rd Gen) - Smart speaker with Alexa - Charcoal', 'D9N29T', 'Charcoal', '9818047011', 'Smart Speakers')],
  B0791TX5P5: [summary('Fire TV Stick 4K streaming device with Alexa Voice Remote', 'E9L29Y', 'Black', '21579967011', 'Streaming Media Players')],
  B09B8V1LZ3: [summary('Echo Dot (5th Gen) smart speaker with Alexa - Charcoal', 'C2N6L4', 'Charcoal', '9818047011', 'Smart Speakers')],
};

/** Catalog Items 2022-04-01 includedData values. */
export const CATALOG_DATASETS = new Set([
  'attributes',
  'classifications',
  'dimensions',
  'identifiers',
  'images',
  'productTypes',
  'relationships',
  'salesRanks',
  'summaries',
  'vendorDetails',
]);
