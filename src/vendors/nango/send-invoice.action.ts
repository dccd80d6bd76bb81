import { VendorPartialError, VendorProtocolError, type VendorAction, type VendorContext } from '../vendor-handler';
import { idString } from '../input-schema';
import { quickbooksRequest } from './nango.transport';

/**
 * invoice.send: create a QuickBooks Online invoice and email it. NOT idempotent as an
 * action (the executor never retries it), but every write carries QuickBooks' native
 * idempotency key, the `requestid` query parameter (at most 50 characters, unique per
 * company and request): QuickBooks answers a repeated requestid with the first response
 * instead of doing the operation again. The create sends `requestid=<idempotencyKey>`, the
 * email `requestid=<idempotencyKey>-send`, and the invoice's PrivateNote carries
 * `toolgate:<idempotencyKey>` (this call) and `toolgate:<effectKey>` (this request of this
 * run, whichever call makes it) so that `lookup` can find it.
 *
 * QuickBooks Accounting API (Invoice entity), through the Nango proxy:
 * 1. Without `email` only: GET /v3/company/{realmId}/customer/{customerId} for the
 *    customer's PrimaryEmailAddr (an API-created invoice carries no address otherwise).
 * 2. The look before the create, only when an earlier identical request of the run may have
 *    acted unanswered (ctx.lookForEarlierEffect: it timed out, failed after sending, or was
 *    cut by a crash): the customer's invoices (the query below) for one that carries the
 *    effect marker. Found, it is the answer (`repeated: true`), emailed now if that was left
 *    undone; nothing new is created. (The requestid alone cannot do this: it names one call,
 *    and QuickBooks remembers it only for a while.) A request repeated after a plain success
 *    is a new invoice, as the agent asked.
 * 3. POST /v3/company/{realmId}/invoice?requestid=<key> { Line: [SalesItemLineDetail],
 *    CustomerRef, CurrencyRef?, BillEmail?, PrivateNote } → { Invoice: { Id, DocNumber,
 *    TotalAmt, EmailStatus, … } }
 * 4. When there is an address: POST /v3/company/{realmId}/invoice/{Id}/send?sendTo=<email>
 *    &requestid=<key>-send (empty application/octet-stream body) → { Invoice: { EmailStatus:
 *    'EmailSent', BillEmail } }. If this step fails the invoice exists: VendorPartialError
 *    `created_not_emailed`, with the created invoice as its result.
 *
 * lookup (an outcome that was lost or uncertain): GET /v3/company/{realmId}/query
 * ?query=select * from Invoice where CustomerRef = '<id>' STARTPOSITION n MAXRESULTS 1000,
 * page by page, for the invoice whose PrivateNote carries the call's or the effect's
 * marker. None → not performed. Emailed, or no address applies → performed. Created but not
 * emailed while an address applies (the crash or the failure came between steps 3 and 4)
 * → step 4 with the call's `-send` requestid, then performed.
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
  /** Set when the invoice exists but a later step did not happen: it was not emailed although an address applies. */
  partial?: 'created_not_emailed';
  /** Set when an identical earlier request of the run had already made this invoice: nothing new was created. */
  repeated?: true;
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

/** QuickBooks' limit on `requestid`. */
const MAX_REQUEST_ID = 50;
const SEND_SUFFIX = '-send';
/** Invoices per query page (the QuickBooks maximum). */
const PAGE_SIZE = 1000;
/** Pages `lookup` reads before it gives up (the vendor cannot tell within reason). */
const MAX_PAGES = 100;

/** The requestids of a call's two writes, derived from its idempotency key. */
export function requestIds(idempotencyKey: string): { create: string; send: string } {
  const send = `${idempotencyKey}${SEND_SUFFIX}`;
  if (idempotencyKey === '' || send.length > MAX_REQUEST_ID) {
    throw new Error(`idempotency key must be 1 to ${MAX_REQUEST_ID - SEND_SUFFIX.length} characters for a QuickBooks requestid`);
  }
  return { create: idempotencyKey, send };
}

/** The PrivateNote marker of a key, so that the call's (or the effect's) invoice can be found. */
export const privateNoteFor = (idempotencyKey: string): string => `toolgate:${idempotencyKey}`;

/** The created invoice's PrivateNote: the call's marker, then the effect's. */
const notesFor = (ctx: VendorContext): string => `${privateNoteFor(ctx.idempotencyKey)} ${privateNoteFor(ctx.effectKey)}`;

/** Whether a PrivateNote carries the marker as a whole word (`tc-1` must not find `tc-10`). */
function carriesMarker(note: unknown, marker: string): boolean {
  return typeof note === 'string' && note.split(/\s+/).includes(marker);
}

/** A QuickBooks query string literal: `\` and `'` escaped with a backslash. */
const literal = (value: string): string => `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;

export function invoiceQuery(customerId: string, startPosition: number): string {
  return `select * from Invoice where CustomerRef = ${literal(customerId)} STARTPOSITION ${startPosition} MAXRESULTS ${PAGE_SIZE}`;
}

export function invoiceBody(input: SendInvoiceInput, itemId: string, email: string | null, privateNote?: string): Json {
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
    ...(privateNote ? { PrivateNote: privateNote } : {}),
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
  description: 'Create and send a QuickBooks invoice to a customer (through Nango). Not idempotent.',
  inputSchema: {
    type: 'object',
    properties: {
      customerId: idString('The QuickBooks customer id'),
      amount: { type: 'number', exclusiveMinimum: 0, description: 'Invoice total' },
      currency: { type: 'string', pattern: '^[A-Z]{3}$', description: "ISO 4217; the customer's currency when absent" },
      description: { type: 'string', maxLength: 500 },
      email: {
        type: 'string',
        maxLength: 254,
        pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
        description: "Where to send the invoice; the customer's primary email when absent",
      },
    },
    required: ['customerId', 'amount'],
    additionalProperties: false,
  },
  defaultRisk: 'high',
  costCents: 2,
  idempotent: false,
  describeResult:
    '{ invoiceId, docNumber: string | null, totalAmount: number, currency: ISO 4217 | null, customerId, ' +
    'emailStatus: EmailSent | NotSet | NeedToSend, sentTo: email address | null (null: created but not emailed), ' +
    "partial?: 'created_not_emailed' (an address applies but the email could not be sent), " +
    'repeated?: true (an identical earlier request of this conversation had made this invoice; no second one was created) }',

  async execute(input: SendInvoiceInput, ctx: VendorContext): Promise<SendInvoiceResult> {
    const ids = requestIds(ctx.idempotencyKey);
    const configuredItem = ctx.credentials.itemId;
    const itemId = typeof configuredItem === 'string' && QBO_ID.test(configuredItem) ? configuredItem : DEFAULT_ITEM_ID;
    const email = input.email?.trim() || (await customerEmail(ctx, input.customerId));

    const existing = ctx.lookForEarlierEffect ? await findInvoice(ctx, input.customerId, markersOf(ctx)) : null;
    if (existing) return finish(ctx, input, existing, email ?? '', ids.send);
    const created = invoiceOf(
      await quickbooksRequest<unknown>(ctx, {
        method: 'POST',
        path: '/invoice',
        query: { requestid: ids.create },
        json: invoiceBody(input, itemId, email, notesFor(ctx)),
      }),
    );
    return finish(ctx, input, created, email ?? '', ids.send);
  },

  async lookup(input: SendInvoiceInput, ctx: VendorContext) {
    const ids = requestIds(ctx.idempotencyKey);
    const invoice = await findInvoice(ctx, input.customerId, markersOf(ctx));
    if (!invoice) return { performed: false as const };
    const billed = isObject(invoice.BillEmail) && typeof invoice.BillEmail.Address === 'string' ? invoice.BillEmail.Address.trim() : '';
    // execute puts the address it sends to on the created invoice, so BillEmail tells
    // whether one applied even when the customer's address changed since.
    return { performed: true as const, result: await finish(ctx, input, invoice, input.email?.trim() || billed, ids.send) };
  },
};

/** The call's marker, and the effect's when an earlier identical request may have left it (else another call's invoice is not this one's). */
const markersOf = (ctx: VendorContext): string[] => [
  privateNoteFor(ctx.idempotencyKey),
  ...(ctx.lookForEarlierEffect ? [privateNoteFor(ctx.effectKey)] : []),
];

/**
 * The call's answer from its invoice (created now, or found): emailed first when `email`
 * applies and it was not yet (the call's `-send` requestid makes a repeat of this step
 * answer the first send). If the email fails the invoice still exists: VendorPartialError.
 */
async function finish(ctx: VendorContext, input: SendInvoiceInput, invoice: Json, email: string, sendRequestId: string): Promise<SendInvoiceResult> {
  const found = normalize(invoice, input.customerId);
  const mark = (result: SendInvoiceResult): SendInvoiceResult =>
    carriesMarker(invoice.PrivateNote, privateNoteFor(ctx.idempotencyKey)) ? result : { ...result, repeated: true };
  if (found.emailStatus === 'EmailSent' || !email) return mark(found);
  try {
    return mark(await sendInvoice(ctx, found.invoiceId, email, sendRequestId, input.customerId));
  } catch (error) {
    throw new VendorPartialError(mark({ ...found, partial: 'created_not_emailed' }), 'created_not_emailed', error);
  }
}

/** Emails a created invoice; the requestid makes a repeat answer the first send. */
async function sendInvoice(ctx: VendorContext, invoiceId: string, email: string, requestId: string, customerId: string): Promise<SendInvoiceResult> {
  const sent = invoiceOf(
    await quickbooksRequest<unknown>(ctx, {
      method: 'POST',
      path: `/invoice/${encodeURIComponent(invoiceId)}/send`,
      query: { sendTo: email, requestid: requestId },
    }),
  );
  return normalize(sent, customerId);
}

/** The customer's invoice whose PrivateNote carries one of the markers, or null; reads every page. */
async function findInvoice(ctx: VendorContext, customerId: string, markers: string[]): Promise<Json | null> {
  for (let page = 0; page < MAX_PAGES; page++) {
    const startPosition = page * PAGE_SIZE + 1;
    const body = await quickbooksRequest<unknown>(ctx, {
      method: 'GET',
      path: '/query',
      query: { query: invoiceQuery(customerId, startPosition) },
    });
    if (!isObject(body) || !isObject(body.QueryResponse)) invalid();
    const rows = body.QueryResponse.Invoice ?? [];
    if (!Array.isArray(rows)) invalid();
    for (const row of rows) {
      if (!isObject(row)) invalid();
      if (markers.some((marker) => carriesMarker(row.PrivateNote, marker))) return row;
    }
    if (rows.length < PAGE_SIZE) return null;
  }
  // Too many invoices to read: the vendor cannot tell within reason.
  throw new Error('too many invoices to look the call up');
}
