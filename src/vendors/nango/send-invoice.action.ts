import { VendorProtocolError, type VendorAction, type VendorContext } from '../vendor-handler';
import { quickbooksRequest } from './nango.transport';

/**
 * invoice.send: create a QuickBooks Online invoice and email it. NOT idempotent: every
 * call creates a new invoice, and no QuickBooks `requestid` is sent, so the executor must
 * never retry it.
 *
 * QuickBooks Accounting API (Invoice entity), through the Nango proxy:
 * 1. Without `email` only: GET /v3/company/{realmId}/customer/{customerId} for the
 *    customer's PrimaryEmailAddr (an API-created invoice carries no address otherwise).
 * 2. POST /v3/company/{realmId}/invoice { Line: [SalesItemLineDetail], CustomerRef,
 *    CurrencyRef?, BillEmail? } → { Invoice: { Id, DocNumber, TotalAmt, EmailStatus, … } }
 * 3. When there is an address: POST /v3/company/{realmId}/invoice/{Id}/send?sendTo=<email>
 *    (empty application/octet-stream body) → { Invoice: { EmailStatus: 'EmailSent', BillEmail } }
 */
export interface SendInvoiceInput {
  customerId: string;
  amount: number;
  currency?: string;
  description?: string;
  email?: string;
}

export interface SendInvoiceResult {
  invoiceId: string;
  docNumber: string | null;
  totalAmount: number;
  currency: string | null;
  customerId: string;
  /** QuickBooks EmailStatus: EmailSent, NotSet or NeedToSend. */
  emailStatus: string;
  /** The address QuickBooks emailed, or null when the invoice was not sent. */
  sentTo: string | null;
}

/** The QuickBooks item billed on the line when the credential names none ("Services"). */
const DEFAULT_ITEM_ID = '1';
const QBO_ID = /^\d{1,20}$/;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function invalid(): never {
  throw new VendorProtocolError(200);
}

const roundCents = (amount: number) => Math.round(amount * 100) / 100;

export function invoiceBody(input: SendInvoiceInput, itemId: string, email: string | null): Json {
  const amount = roundCents(input.amount);
  const line: Json = {
    DetailType: 'SalesItemLineDetail',
    Amount: amount,
    ...(input.description ? { Description: input.description } : {}),
    SalesItemLineDetail: { ItemRef: { value: itemId }, Qty: 1, UnitPrice: amount },
  };
  return {
    Line: [line],
    CustomerRef: { value: input.customerId },
    ...(input.currency ? { CurrencyRef: { value: input.currency } } : {}),
    ...(email ? { BillEmail: { Address: email } } : {}),
  };
}

function invoiceOf(body: unknown): Json {
  if (!isObject(body) || !isObject(body.Invoice)) invalid();
  return body.Invoice;
}

function normalize(invoice: Json, fallbackCustomerId: string): SendInvoiceResult {
  const { Id, DocNumber, TotalAmt, CurrencyRef, CustomerRef, EmailStatus, BillEmail } = invoice;
  if (typeof Id !== 'string' || !QBO_ID.test(Id)) invalid();
  if (DocNumber !== undefined && typeof DocNumber !== 'string') invalid();
  if (typeof TotalAmt !== 'number' || !Number.isFinite(TotalAmt)) invalid();
  const currency = isObject(CurrencyRef) ? CurrencyRef.value : undefined;
  if (currency !== undefined && (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))) invalid();
  const customerId = isObject(CustomerRef) ? CustomerRef.value : fallbackCustomerId;
  if (typeof customerId !== 'string') invalid();
  const emailStatus = EmailStatus ?? 'NotSet';
  if (typeof emailStatus !== 'string' || !/^[A-Za-z]{1,32}$/.test(emailStatus)) invalid();
  const address = isObject(BillEmail) ? BillEmail.Address : undefined;
  if (address !== undefined && typeof address !== 'string') invalid();
  return {
    invoiceId: Id,
    docNumber: DocNumber ? DocNumber.slice(0, 32) : null,
    totalAmount: TotalAmt,
    currency: currency ?? null,
    customerId: customerId.slice(0, 128),
    emailStatus,
    sentTo: emailStatus === 'EmailSent' && address ? address.slice(0, 254) : null,
  };
}

/** The customer's primary email address, or null when QuickBooks has none on file. */
async function customerEmail(ctx: VendorContext, customerId: string): Promise<string | null> {
  const body = await quickbooksRequest<unknown>(ctx, { method: 'GET', path: `/customer/${encodeURIComponent(customerId)}` });
  if (!isObject(body) || !isObject(body.Customer)) invalid();
  const primary = body.Customer.PrimaryEmailAddr;
  const address = isObject(primary) ? primary.Address : undefined;
  return typeof address === 'string' && address.trim() !== '' ? address.trim() : null;
}

export const sendInvoiceAction: VendorAction<SendInvoiceInput, SendInvoiceResult> = {
  toolName: 'invoice',
  action: 'send',
  idempotent: false,
  describeResult:
    '{ invoiceId, docNumber: string | null, totalAmount: number, currency: ISO 4217 | null, customerId, ' +
    'emailStatus: EmailSent | NotSet | NeedToSend, sentTo: email address | null (null: created but not emailed, ' +
    'no address given or on file) }',

  async execute(input: SendInvoiceInput, ctx: VendorContext): Promise<SendInvoiceResult> {
    const configuredItem = ctx.credentials.itemId;
    const itemId = typeof configuredItem === 'string' && QBO_ID.test(configuredItem) ? configuredItem : DEFAULT_ITEM_ID;
    const email = input.email?.trim() || (await customerEmail(ctx, input.customerId));

    const created = invoiceOf(
      await quickbooksRequest<unknown>(ctx, { method: 'POST', path: '/invoice', json: invoiceBody(input, itemId, email) }),
    );
    const createdResult = normalize(created, input.customerId);
    if (!email) return createdResult;

    const sent = invoiceOf(
      await quickbooksRequest<unknown>(ctx, {
        method: 'POST',
        path: `/invoice/${encodeURIComponent(createdResult.invoiceId)}/send`,
        query: { sendTo: email },
      }),
    );
    return normalize(sent, input.customerId);
  },
};
