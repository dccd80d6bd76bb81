import type { RiskLevel } from './risk';

/**
 * The built-in tool catalog, as plain data. `ensureCatalog` writes it to
 * tool_definitions on every start, so the database always matches this list.
 */
export interface CatalogEntry {
  toolName: string;
  action: string;
  vendor: 'shopify' | 'amazon' | 'jumio' | 'nango';
  description: string;
  defaultRisk: RiskLevel;
  idempotent: boolean;
  costCents: number;
  inputSchema: Record<string, unknown>;
}

const idString = (description: string) => ({ type: 'string', minLength: 1, maxLength: 128, description });

export const TOOL_CATALOG: CatalogEntry[] = [
  {
    toolName: 'order_lookup',
    action: 'lookup',
    vendor: 'shopify',
    description: 'Look up a Shopify order: status, fulfillment status, tracking numbers and items.',
    defaultRisk: 'low',
    idempotent: true,
    costCents: 0,
    inputSchema: {
      type: 'object',
      properties: { orderId: idString('The order number, e.g. 12345') },
      required: ['orderId'],
      additionalProperties: false,
    },
  },
  {
    toolName: 'shopify_query',
    action: 'get_product',
    vendor: 'shopify',
    description: 'Get a Shopify product: title, variants, price and inventory.',
    defaultRisk: 'low',
    idempotent: true,
    costCents: 0,
    inputSchema: {
      type: 'object',
      properties: { productId: idString('The product id') },
      required: ['productId'],
      additionalProperties: false,
    },
  },
  {
    toolName: 'amazon_query',
    action: 'get_order',
    vendor: 'amazon',
    description: 'Get an Amazon marketplace order and its items (SP-API Orders).',
    defaultRisk: 'low',
    idempotent: true,
    costCents: 0,
    inputSchema: {
      type: 'object',
      properties: { orderId: idString('The Amazon order id, e.g. 902-3159896-1390916') },
      required: ['orderId'],
      additionalProperties: false,
    },
  },
  {
    toolName: 'amazon_query',
    action: 'get_catalog_item',
    vendor: 'amazon',
    description: 'Get an Amazon catalog item (title, brand) by ASIN in the seller\'s marketplace (SP-API Catalog Items).',
    defaultRisk: 'low',
    idempotent: true,
    costCents: 0,
    inputSchema: {
      type: 'object',
      properties: {
        asin: { type: 'string', pattern: '^[A-Za-z0-9]{10}$', description: 'The ASIN, e.g. B07FZ8S74R' },
      },
      required: ['asin'],
      additionalProperties: false,
    },
  },
  {
    toolName: 'kyc_check',
    action: 'get_status',
    vendor: 'jumio',
    description: 'Get the status and decision of a Jumio identity verification.',
    defaultRisk: 'medium',
    idempotent: true,
    costCents: 5,
    inputSchema: {
      type: 'object',
      properties: {
        accountId: idString('The Jumio account id'),
        workflowExecutionId: idString('The Jumio workflow execution id'),
      },
      required: ['accountId', 'workflowExecutionId'],
      additionalProperties: false,
    },
  },
  {
    toolName: 'account_balance',
    action: 'lookup',
    vendor: 'nango',
    description: 'Look up QuickBooks account balances (through Nango).',
    defaultRisk: 'medium',
    idempotent: true,
    costCents: 1,
    inputSchema: {
      type: 'object',
      properties: { accountName: { type: 'string', maxLength: 128, description: 'Optional account name filter' } },
      additionalProperties: false,
    },
  },
  {
    toolName: 'invoice',
    action: 'send',
    vendor: 'nango',
    description: 'Create and send a QuickBooks invoice to a customer (through Nango). Not idempotent.',
    defaultRisk: 'high',
    idempotent: false,
    costCents: 2,
    inputSchema: {
      type: 'object',
      properties: {
        customerId: idString('The QuickBooks customer id'),
        amount: { type: 'number', exclusiveMinimum: 0, description: 'Invoice total' },
        currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217; the customer\'s currency when absent' },
        description: { type: 'string', maxLength: 500 },
        email: {
          type: 'string',
          maxLength: 254,
          pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
          description: 'Where to send the invoice; the customer\'s primary email when absent',
        },
      },
      required: ['customerId', 'amount'],
      additionalProperties: false,
    },
  },
];

export const toolKey = (toolName: string, action: string) => `${toolName}.${action}`;
