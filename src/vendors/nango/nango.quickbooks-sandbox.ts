import type { SandboxResponse } from '../sandbox/sandbox-server';
import { CURRENCY_NAMES, seedAccounts, seedCustomers, seedItems, type QboEntity } from './nango.sandbox-data';

/**
 * A QuickBooks Online company as Nango's proxy reaches it: the Accounting API paths below
 * /v3/company/{realmId}, its JSON shapes ({ QueryResponse }, { Invoice }, { Customer }) and
 * its errors (HTTP 400 with { Fault: { Error: [{ Message, Detail, code }], type } }).
 *
 * Like QuickBooks, a POST carrying a `requestid` query parameter the company has seen
 * before is answered with the stored first response and has no second effect (no new
 * invoice, no second email); without one every POST acts.
 */
export interface QuickBooksCall {
  method: string;
  /** Below /v3/company/{realmId}, e.g. `/query`. */
  path: string;
  query: URLSearchParams;
  body: unknown;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const now = () => new Date().toISOString();
const day = (offsetDays = 0) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function fault(code: string, message: string, detail: string, type = 'ValidationFault', status = 400): SandboxResponse {
  return { status, json: { Fault: { Error: [{ Message: message, Detail: detail, code, element: '' }], type }, time: now() } };
}

const notFound = () =>
  fault(
    '610',
    'Object Not Found',
    "Object Not Found : Something you're trying to use has been made inactive. Check the fields with accounts, invoices, items, vendors or employees.",
  );
const invalidReference = (what: string) =>
  fault('2500', 'Invalid Reference Id', `Invalid Reference Id : ${what} assigned to this transaction has been deleted or is inactive.`);
const missingParam = (names: string) =>
  fault('2020', 'Required param missing, need to supply the required value for the API', `Required parameter ${names} is missing in the request`);
const parseError = (detail: string) => fault('4000', 'Error parsing query', `QueryParserError: ${detail}`);
const ok = (json: Json): SandboxResponse => ({ status: 200, json: { ...json, time: now() } });

const QUERY =
  /^\s*select\s+\*\s+from\s+(\w+)(?:\s+where\s+(\w+)\s*(=|like)\s*'((?:[^'\\]|\\.)*)')?(?:\s+startposition\s+(\d+))?(?:\s+maxresults\s+(\d+))?\s*$/i;

/** What an invoice created through the API did, for tests and crash harnesses ("no duplicate effect"). */
export interface InvoiceEffect {
  invoiceId: string;
  docNumber: string;
  customerId: string;
  totalAmount: number;
  privateNote: string | null;
  /** The create's `requestid`, or null when it had none. */
  requestId: string | null;
  /** Emails actually sent for the invoice (a repeated send with the same requestid sends none). */
  emailsSent: number;
}

/** A reference field (CustomerRef: { value, name }) compares by its value, like QuickBooks. */
const fieldValue = (value: unknown): unknown => (isObject(value) && 'value' in value ? value.value : value);

function matcher(operator: string, literal: string): (value: unknown) => boolean {
  const text = literal.replace(/\\(.)/g, '$1');
  if (operator === '=') return (value) => typeof value === 'string' && value.toLowerCase() === text.toLowerCase();
  const pattern = text
    .split('%')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const regex = new RegExp(`^${pattern}$`, 'is');
  return (value) => typeof value === 'string' && regex.test(value);
}

export class QuickBooksCompany {
  private readonly accounts = seedAccounts();
  private readonly customers = seedCustomers();
  private readonly items = seedItems();
  /** Every invoice created through the API, in creation order. */
  readonly invoices: QboEntity[] = [];
  private nextInvoiceId = 130;
  private nextDocNumber = 1037;
  /** The first response to each POST `requestid`, as it was then. */
  private readonly answered = new Map<string, SandboxResponse>();
  /** Per created invoice id: its create's requestid and the emails sent. */
  private readonly effectsById = new Map<string, { requestId: string | null; emailsSent: number }>();

  handle(call: QuickBooksCall): SandboxResponse {
    const requestId = call.method === 'POST' ? call.query.get('requestid') : null;
    if (requestId === null) return this.act(call, null);
    const first = this.answered.get(requestId);
    if (first) return structuredClone(first);
    const response = this.act(call, requestId);
    this.answered.set(requestId, structuredClone(response));
    return response;
  }

  /** One entry per invoice created through the API, in creation order. */
  effects(): InvoiceEffect[] {
    return this.invoices.map((invoice) => {
      const effect = this.effectsById.get(invoice.Id) ?? { requestId: null, emailsSent: 0 };
      return {
        invoiceId: invoice.Id,
        docNumber: invoice.DocNumber as string,
        customerId: (invoice.CustomerRef as { value: string }).value,
        totalAmount: invoice.TotalAmt as number,
        privateNote: typeof invoice.PrivateNote === 'string' ? invoice.PrivateNote : null,
        requestId: effect.requestId,
        emailsSent: effect.emailsSent,
      };
    });
  }

  private act(call: QuickBooksCall, requestId: string | null): SandboxResponse {
    const { method, path } = call;
    if (method === 'GET' && path === '/query') return this.query(call.query.get('query') ?? '');
    if (method === 'POST' && path === '/invoice') return this.createInvoice(call.body, requestId);
    const send = /^\/invoice\/([^/]+)\/send$/.exec(path);
    if (method === 'POST' && send) return this.sendInvoice(send[1], call.query.get('sendTo'));
    const invoice = /^\/invoice\/([^/]+)$/.exec(path);
    if (method === 'GET' && invoice) return this.read(this.invoices, 'Invoice', invoice[1]);
    const customer = /^\/customer\/([^/]+)$/.exec(path);
    if (method === 'GET' && customer) return this.read(this.customers, 'Customer', customer[1]);
    return fault('4001', 'Unsupported Operation', `Operation ${method} ${path} is not supported.`);
  }

  private read(entities: QboEntity[], name: string, id: string): SandboxResponse {
    const entity = entities.find((e) => e.Id === decode(id));
    return entity ? ok({ [name]: entity }) : notFound();
  }

  private query(statement: string): SandboxResponse {
    const match = QUERY.exec(statement);
    if (!match) return parseError(`Encountered an unexpected token in "${statement.slice(0, 100)}"`);
    const [, entity, field, operator, literal, start, max] = match;
    const table = { account: this.accounts, customer: this.customers, item: this.items, invoice: this.invoices }[entity.toLowerCase()];
    if (!table) return parseError(`Entity ${entity} is not supported by this sandbox.`);
    const maxResults = max ? Number(max) : 100;
    if (maxResults > 1000) return fault('4001', 'Invalid query', 'QueryValidationError: value 1000 is the maximum for MAXRESULTS');
    const test = field ? matcher(operator.toLowerCase(), literal) : () => true;
    const startPosition = start ? Number(start) : 1;
    const rows = table
      .filter((row) => row.Active !== false && (!field || test(fieldValue(row[field]))))
      .slice(startPosition - 1, startPosition - 1 + maxResults);
    const name = entity[0].toUpperCase() + entity.slice(1).toLowerCase();
    return ok({ QueryResponse: rows.length ? { [name]: rows, startPosition, maxResults: rows.length } : {} });
  }

  private createInvoice(body: unknown, requestId: string | null): SandboxResponse {
    if (!isObject(body) || !Array.isArray(body.Line) || body.Line.length === 0 || !isObject(body.CustomerRef)) {
      return missingParam('Line, CustomerRef');
    }
    const customer = this.customers.find((c) => c.Id === (body.CustomerRef as Json).value);
    if (!customer) return invalidReference('Customer');
    const customerCurrency = (customer.CurrencyRef as { value: string }).value;
    const currency = isObject(body.CurrencyRef) ? body.CurrencyRef.value : customerCurrency;
    if (currency !== customerCurrency) {
      return fault(
        '6000',
        'A business validation error has occurred while processing your request',
        'Business Validation Error: The currency of the transaction must match the currency of the customer.',
      );
    }
    const lines: Json[] = [];
    for (const [index, line] of body.Line.entries()) {
      const detail = isObject(line) ? line.SalesItemLineDetail : undefined;
      if (!isObject(line) || line.DetailType !== 'SalesItemLineDetail' || typeof line.Amount !== 'number' || !isObject(detail)) {
        return missingParam('Line.Amount, Line.DetailType');
      }
      const itemRef = isObject(detail.ItemRef) ? detail.ItemRef.value : '1';
      const item = this.items.find((i) => i.Id === itemRef);
      if (!item) return invalidReference('Item');
      lines.push({
        Id: String(index + 1),
        LineNum: index + 1,
        ...(typeof line.Description === 'string' ? { Description: line.Description } : {}),
        Amount: line.Amount,
        DetailType: 'SalesItemLineDetail',
        SalesItemLineDetail: { ...detail, ItemRef: { value: item.Id, name: item.Name }, TaxCodeRef: { value: 'NON' } },
      });
    }
    const total = Math.round(lines.reduce((sum, l) => sum + (l.Amount as number) * 100, 0)) / 100;
    const billEmail = isObject(body.BillEmail) && typeof body.BillEmail.Address === 'string' ? { Address: body.BillEmail.Address } : undefined;
    if (body.PrivateNote !== undefined && (typeof body.PrivateNote !== 'string' || body.PrivateNote.length > 4000)) {
      return fault('2050', 'String length is either shorter or longer than supported by specification', 'PrivateNote: max 4000 characters');
    }
    const invoice: QboEntity = {
      Id: String(this.nextInvoiceId++),
      SyncToken: '0',
      domain: 'QBO',
      sparse: false,
      MetaData: { CreateTime: now(), LastUpdatedTime: now() },
      DocNumber: String(this.nextDocNumber++),
      TxnDate: day(),
      DueDate: day(30),
      CurrencyRef: { value: currency, name: CURRENCY_NAMES[currency as string] ?? currency },
      LinkedTxn: [],
      Line: [...lines, { Amount: total, DetailType: 'SubTotalLineDetail', SubTotalLineDetail: {} }],
      TxnTaxDetail: { TotalTax: 0 },
      CustomerRef: { value: customer.Id, name: customer.DisplayName },
      ...(billEmail ? { BillEmail: billEmail } : {}),
      ...(typeof body.PrivateNote === 'string' ? { PrivateNote: body.PrivateNote } : {}),
      TotalAmt: total,
      Balance: total,
      PrintStatus: 'NotSet',
      EmailStatus: 'NotSet',
    };
    this.invoices.push(invoice);
    this.effectsById.set(invoice.Id, { requestId, emailsSent: 0 });
    return ok({ Invoice: invoice });
  }

  private sendInvoice(id: string, sendTo: string | null): SandboxResponse {
    const invoice = this.invoices.find((i) => i.Id === decode(id));
    if (!invoice) return notFound();
    const address = sendTo ?? (invoice.BillEmail as { Address?: string } | undefined)?.Address;
    if (!address) return fault('2050', 'Email Address is missing', 'Email Address is missing: supply sendTo or set BillEmail.');
    if (!EMAIL.test(address)) return fault('2050', 'Invalid Email Address format', 'Invalid Email Address format');
    const effect = this.effectsById.get(invoice.Id);
    if (effect) effect.emailsSent += 1;
    invoice.BillEmail = { Address: address };
    invoice.EmailStatus = 'EmailSent';
    invoice.DeliveryInfo = { DeliveryType: 'Email', DeliveryTime: now() };
    invoice.SyncToken = String(Number(invoice.SyncToken) + 1);
    invoice.MetaData = { ...(invoice.MetaData as Json), LastUpdatedTime: now() };
    return ok({ Invoice: invoice });
  }
}
