/**
 * The Shopify sandbox's schema and demo shop. The SDL is a subset of the GraphQL Admin
 * API 2025-07 schema (same type, field, argument and enum names), so a query that the
 * sandbox accepts is one the real API accepts; the seed is plain data.
 */
export const SHOPIFY_SANDBOX_SDL = `
schema { query: QueryRoot }
scalar DateTime
scalar Money
scalar URL
scalar UnsignedInt64
enum CountryCode { CA DE FR GB US }
enum OrderDisplayFinancialStatus { AUTHORIZED EXPIRED PAID PARTIALLY_PAID PARTIALLY_REFUNDED PENDING REFUNDED VOIDED }
enum OrderDisplayFulfillmentStatus {
  FULFILLED IN_PROGRESS ON_HOLD OPEN PARTIALLY_FULFILLED PENDING_FULFILLMENT REQUEST_DECLINED RESTOCKED SCHEDULED UNFULFILLED
}
enum FulfillmentStatus { CANCELLED ERROR FAILURE SUCCESS OPEN PENDING }
enum ProductStatus { ACTIVE ARCHIVED DRAFT }
type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
type QueryRoot {
  order(id: ID!): Order
  orders(first: Int, after: String, last: Int, before: String, query: String, reverse: Boolean): OrderConnection!
  product(id: ID!): Product
}
type Order {
  id: ID!
  legacyResourceId: UnsignedInt64!
  name: String!
  email: String
  createdAt: DateTime!
  cancelledAt: DateTime
  closed: Boolean!
  closedAt: DateTime
  displayFinancialStatus: OrderDisplayFinancialStatus
  displayFulfillmentStatus: OrderDisplayFulfillmentStatus!
  fulfillments(first: Int): [Fulfillment!]!
  lineItems(first: Int, after: String, last: Int, before: String): LineItemConnection!
  shippingAddress: MailingAddress
}
type OrderConnection { edges: [OrderEdge!]! nodes: [Order!]! pageInfo: PageInfo! }
type OrderEdge { cursor: String! node: Order! }
type Fulfillment {
  id: ID!
  legacyResourceId: UnsignedInt64!
  status: FulfillmentStatus!
  createdAt: DateTime!
  trackingInfo(first: Int): [FulfillmentTrackingInfo!]!
}
type FulfillmentTrackingInfo { company: String number: String url: URL }
type LineItem { id: ID! name: String! title: String! quantity: Int! sku: String }
type LineItemConnection { edges: [LineItemEdge!]! nodes: [LineItem!]! pageInfo: PageInfo! }
type LineItemEdge { cursor: String! node: LineItem! }
type MailingAddress {
  name: String firstName: String lastName: String address1: String address2: String city: String
  province: String provinceCode: String zip: String country: String countryCodeV2: CountryCode phone: String
}
type Product {
  id: ID!
  legacyResourceId: UnsignedInt64!
  title: String!
  handle: String!
  status: ProductStatus!
  totalInventory: Int!
  variants(first: Int, after: String, last: Int, before: String): ProductVariantConnection!
}
type ProductVariant { id: ID! legacyResourceId: UnsignedInt64! title: String! sku: String price: Money! inventoryQuantity: Int }
type ProductVariantConnection { edges: [ProductVariantEdge!]! nodes: [ProductVariant!]! pageInfo: PageInfo! }
type ProductVariantEdge { cursor: String! node: ProductVariant! }
`;

export interface SeedLineItem {
  name: string;
  title: string;
  quantity: number;
  sku: string | null;
}
export interface SeedFulfillment {
  id: string;
  status: string;
  createdAt: string;
  tracking: { number: string; company: string; url: string }[];
}
export interface SeedOrder {
  id: string;
  name: string;
  email: string;
  createdAt: string;
  closedAt: string | null;
  cancelledAt: string | null;
  financial: string;
  fulfillment: string;
  lineItems: SeedLineItem[];
  fulfillments: SeedFulfillment[];
  shippingAddress: Record<string, string | null>;
}
export interface SeedVariant {
  id: string;
  title: string;
  sku: string;
  price: string;
  inventoryQuantity: number;
}
export interface SeedProduct {
  id: string;
  title: string;
  handle: string;
  status: string;
  variants: SeedVariant[];
}

const address = (name: string, address1: string, city: string, province: string, provinceCode: string, zip: string) => ({
  name,
  firstName: name.split(' ')[0],
  lastName: name.split(' ').slice(1).join(' '),
  address1,
  address2: null,
  city,
  province,
  provinceCode,
  zip,
  country: 'United States',
  countryCodeV2: 'US',
  phone: null,
});

/** The tracking page of each carrier the demo shop ships with. */
const TRACKING_URLS: Record<string, (number: string) => string> = {
  UPS: (n) => `https://www.ups.com/WebTracking?loc=en_US&requester=ST&trackNums=${n}`,
  USPS: (n) => `https://tools.usps.com/go/TrackConfirmAction?tLabels=${n}`,
  FedEx: (n) => `https://www.fedex.com/fedextrack/?trknbr=${n}`,
};

/** A fulfillment with one tracking number. */
const fulfillment = (id: string, status: string, createdAt: string, company: string, number: string): SeedFulfillment => ({
  id,
  status,
  createdAt,
  tracking: [{ number, company, url: TRACKING_URLS[company](number) }],
});

/** A line item of a product's variant, named `<product title> - <variant title>` as Shopify names it. */
const lineItem = (title: string, variant: string, quantity: number, sku: string): SeedLineItem => ({
  name: `${title} - ${variant}`,
  title,
  quantity,
  sku,
});

/** An order that is neither closed nor cancelled. */
function openOrder(
  id: string,
  name: string,
  email: string,
  createdAt: string,
  financial: string,
  fulfillment: string,
  rest: Pick<SeedOrder, 'lineItems' | 'fulfillments' | 'shippingAddress'>,
): SeedOrder {
  return { id, name, email, createdAt, closedAt: null, cancelledAt: null, financial, fulfillment, ...rest };
}

export const SEED_ORDERS: SeedOrder[] = [
  openOrder('5987654321001', '#12345', 'bob.norman@example.com', '2025-06-10T14:03:11Z', 'PAID', 'FULFILLED', {
    lineItems: [lineItem('IPod Nano - 8GB', 'Pink', 1, 'IPOD2008PINK'), lineItem('IPod Touch 8GB', 'Black', 1, 'IPOD2009BLACK')],
    fulfillments: [fulfillment('4451234001', 'SUCCESS', '2025-06-11T09:30:00Z', 'UPS', 'TRACK-001')],
    shippingAddress: address('Bob Norman', 'Chestnut Street 92', 'Louisville', 'Kentucky', 'KY', '40202'),
  }),
  openOrder('5987654321002', '#12346', 'jane.doe@example.com', '2025-06-12T08:45:00Z', 'PAID', 'UNFULFILLED', {
    lineItems: [lineItem('IPod Nano - 8GB', 'Red', 2, 'IPOD2008RED')],
    fulfillments: [],
    shippingAddress: address('Jane Doe', '150 Elgin Street', 'Portland', 'Oregon', 'OR', '97205'),
  }),
  openOrder('5987654321003', '#12347', 'sam.lee@example.com', '2025-06-13T17:20:45Z', 'PARTIALLY_REFUNDED', 'PARTIALLY_FULFILLED', {
    lineItems: [lineItem('IPod Nano - 8GB', 'Green', 1, 'IPOD2008GREEN'), lineItem('IPod Nano - 8GB', 'Black', 1, 'IPOD2008BLACK')],
    fulfillments: [
      fulfillment('4451234002', 'CANCELLED', '2025-06-14T10:00:00Z', 'USPS', 'VOID-999'),
      fulfillment('4451234003', 'SUCCESS', '2025-06-14T11:00:00Z', 'FedEx', 'TRACK-002'),
    ],
    shippingAddress: address('Sam Lee', '1 Market Street', 'San Francisco', 'California', 'CA', '94105'),
  }),
];

export const SEED_PRODUCTS: SeedProduct[] = [
  {
    id: '632910392',
    title: 'IPod Nano - 8GB',
    handle: 'ipod-nano',
    status: 'ACTIVE',
    variants: [
      { id: '808950810', title: 'Pink', sku: 'IPOD2008PINK', price: '199.00', inventoryQuantity: 10 },
      { id: '49148385', title: 'Red', sku: 'IPOD2008RED', price: '199.00', inventoryQuantity: 20 },
      { id: '39072856', title: 'Green', sku: 'IPOD2008GREEN', price: '189.00', inventoryQuantity: 30 },
      { id: '457924702', title: 'Black', sku: 'IPOD2008BLACK', price: '209.00', inventoryQuantity: 40 },
    ],
  },
  {
    id: '921728736',
    title: 'IPod Touch 8GB',
    handle: 'ipod-touch',
    status: 'ACTIVE',
    variants: [{ id: '447654529', title: 'Black', sku: 'IPOD2009BLACK', price: '199.00', inventoryQuantity: 13 }],
  },
];
