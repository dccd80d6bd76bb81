import type { SandboxRequest, VendorSandbox } from '../../src/vendors/sandbox/sandbox-server';
import { VendorHttpError, VendorPartialError, VendorProtocolError, type VendorContext } from '../../src/vendors/vendor-handler';
import { nangoHandler } from '../../src/vendors/nango/nango.handler';
import { accountBalanceAction } from '../../src/vendors/nango/account-balance.action';
import { sendInvoiceAction } from '../../src/vendors/nango/send-invoice.action';
import { QBO_DEMO_CUSTOMERS, QBO_DEMO_REALM_ID, nangoDemoCredentials, nangoSandbox } from '../../src/vendors/nango/nango.sandbox';
import { TOOL_CATALOG } from '../../src/catalog/tool-catalog';
import { toolKey } from '../../src/catalog/tool-key';
import { httpError, rejection, useSandboxServer, vendorContext } from './vendor-helpers';

/** What the sandbox routes saw, with the query string (RecordedRequest has the path only). */
const seen: SandboxRequest[] = [];
const recording: VendorSandbox = {
  vendor: 'nango',
  routes: nangoSandbox.routes.map((route) => ({
    ...route,
    handle: (request: SandboxRequest) => {
      seen.push(request);
      return route.handle(request);
    },
  })),
};

const server = useSandboxServer([recording]);
const company = `/proxy/v3/company/${QBO_DEMO_REALM_ID}`;

beforeEach(() => {
  seen.length = 0;
  nangoSandbox.reset();
});

/** `effectKey`: the request a call makes (one run, one input); calls of another request differ. */
function context(credentials: Record<string, unknown> = {}, idempotencyKey = 'tc-1', effectKey = 'effect-1'): VendorContext {
  return vendorContext({ ...nangoDemoCredentials, ...credentials }, { api: server.urlFor('nango') }, { idempotencyKey, effectKey });
}

/** The invoice of a partial action (created, email failed): its VendorPartialError and the email step's failure. */
async function partial(promise: Promise<unknown>): Promise<VendorPartialError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(VendorPartialError);
  return error as VendorPartialError;
}

const httpStatus = async (promise: Promise<unknown>): Promise<number> => (await httpError(promise)).status;

function expectNangoHeaders(headers: Record<string, unknown>): void {
  expect(headers).toMatchObject({
    authorization: `Bearer ${nangoDemoCredentials.secretKey}`,
    'connection-id': 'demo-quickbooks',
    'provider-config-key': 'quickbooks',
  });
}

describe('account_balance.lookup through the Nango proxy', () => {
  test('all accounts: one QuickBooks query, normalized balances, no total across classifications', async () => {
    const result = await accountBalanceAction.execute({}, context());
    expect(result.accounts).toHaveLength(6);
    expect(result.accounts[0]).toEqual({
      id: '35',
      name: 'Checking',
      accountType: 'Bank',
      classification: 'Asset',
      currentBalance: 1201,
      currency: 'USD',
    });
    expect(result.accounts.map((a) => a.name)).toEqual([
      'Checking',
      'Savings',
      'Accounts Receivable (A/R)',
      'Undeposited Funds',
      'Accounts Payable (A/P)',
      'Mastercard',
    ]);
    expect(result.totalBalance).toBeNull();

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe('GET');
    expect(request.path).toBe(`${company}/query`);
    expectNangoHeaders(request.headers);
    expect(request.headers.requestid).toBeUndefined();
    expect(Object.fromEntries(seen[0].query)).toEqual({ query: 'select * from Account MAXRESULTS 1000', minorversion: '75' });
  });

  test('a name filter becomes a LIKE clause; one classification gets a total', async () => {
    const result = await accountBalanceAction.execute({ accountName: 'sav' }, context());
    expect(result).toEqual({
      accounts: [{ id: '36', name: 'Savings', accountType: 'Bank', classification: 'Asset', currentBalance: 800, currency: 'USD' }],
      totalBalance: 800,
    });
    expect(seen[0].query.get('query')).toBe("select * from Account where Name LIKE '%sav%' MAXRESULTS 1000");

    const receivable = await accountBalanceAction.execute({ accountName: 'Accounts Receivable' }, context());
    expect(receivable.accounts.map((a) => [a.name, a.currentBalance])).toEqual([['Accounts Receivable (A/R)', 5281.52]]);
  });

  test('quotes are escaped, wildcards dropped; no match is an empty list', async () => {
    const result = await accountBalanceAction.execute({ accountName: "Amy's %" }, context());
    expect(result).toEqual({ accounts: [], totalBalance: null });
    expect(seen[0].query.get('query')).toBe("select * from Account where Name LIKE '%Amy\\'s %' MAXRESULTS 1000");
  });
});

describe('invoice.send through the Nango proxy', () => {
  const input = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 150.5, currency: 'USD', description: 'Consulting, May', email: 'ap@amys.example' };

  test('looks for the request’s invoice, creates it, then sends it to the given address', async () => {
    const result = await sendInvoiceAction.execute(input, context());
    expect(result).toEqual({
      invoiceId: '130',
      docNumber: '1037',
      totalAmount: 150.5,
      currency: 'USD',
      customerId: '1',
      emailStatus: 'EmailSent',
      sentTo: 'ap@amys.example',
    });

    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${company}/query`,
      `POST ${company}/invoice`,
      `POST ${company}/invoice/130/send`,
    ]);
    expect(seen[0].query.get('query')).toBe("select * from Invoice where CustomerRef = '1' STARTPOSITION 1 MAXRESULTS 1000");
    const [, create, send] = server.requests;
    for (const request of [create, send]) expectNangoHeaders(request.headers);
    expect(create.headers['content-type']).toBe('application/json');
    expect(create.body).toEqual({
      Line: [
        {
          DetailType: 'SalesItemLineDetail',
          Amount: 150.5,
          Description: 'Consulting, May',
          SalesItemLineDetail: { ItemRef: { value: '1' }, Qty: 1, UnitPrice: 150.5 },
        },
      ],
      CustomerRef: { value: '1' },
      CurrencyRef: { value: 'USD' },
      BillEmail: { Address: 'ap@amys.example' },
      // The call's marker, then the request's (found by a repeat of the request).
      PrivateNote: 'toolgate:tc-1 toolgate:effect-1',
    });
    // QuickBooks' idempotency key on both writes: the call's key, and the key + -send.
    expect(Object.fromEntries(seen[1].query)).toEqual({ requestid: 'tc-1', minorversion: '75' });
    expect(send.headers['content-type']).toBe('application/octet-stream');
    expect(send.body).toBeNull();
    expect(Object.fromEntries(seen[2].query)).toEqual({ sendTo: 'ap@amys.example', requestid: 'tc-1-send', minorversion: '75' });

    const [invoice] = nangoSandbox.createdInvoices();
    expect(invoice).toMatchObject({
      Id: '130',
      EmailStatus: 'EmailSent',
      BillEmail: { Address: 'ap@amys.example' },
      TotalAmt: 150.5,
      PrivateNote: 'toolgate:tc-1 toolgate:effect-1',
    });
    expect(nangoSandbox.effects()).toEqual([
      {
        invoiceId: '130',
        docNumber: '1037',
        customerId: '1',
        totalAmount: 150.5,
        privateNote: 'toolgate:tc-1 toolgate:effect-1',
        requestId: 'tc-1',
        emailsSent: 1,
      },
    ]);
  });

  test("the executor's 45-character key fits: requestid <key> and <key>-send (50, QuickBooks' maximum)", async () => {
    const key = `toolgate-${'0f8e2c1a-9b7d-4c3e-8f6a-5d4c3b2a1f0e'}`;
    expect(key).toHaveLength(45);
    await sendInvoiceAction.execute(input, context({}, key));
    expect(seen.map((r) => r.query.get('requestid'))).toEqual([null, key, `${key}-send`]);
    expect(`${key}-send`).toHaveLength(50);
    // A longer key could not make a valid requestid: refused before any request.
    await expect(sendInvoiceAction.execute(input, context({}, `${key}x`))).rejects.toThrow('idempotency key');
    expect(server.requests).toHaveLength(3);
  });

  test('is not idempotent as an action: two calls of two requests create two invoices', async () => {
    const first = await sendInvoiceAction.execute(input, context({}, 'tc-1', 'effect-1'));
    const second = await sendInvoiceAction.execute(input, context({}, 'tc-2', 'effect-2'));
    expect(second.invoiceId).not.toBe(first.invoiceId);
    expect(second.docNumber).not.toBe(first.docNumber);
    expect(nangoSandbox.createdInvoices().map((i) => i.Id)).toEqual([first.invoiceId, second.invoiceId]);
    expect(server.requests.filter((r) => r.path === `${company}/invoice`)).toHaveLength(2);
  });

  test('the same key twice (a repeat of the same call): its invoice is found before a create, emailed once', async () => {
    const first = await sendInvoiceAction.execute(input, context());
    const again = await sendInvoiceAction.execute(input, context());
    expect(again).toEqual(first);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
    expect(nangoSandbox.createdInvoices()).toHaveLength(1);
    expect(nangoSandbox.effects()).toEqual([expect.objectContaining({ invoiceId: first.invoiceId, requestId: 'tc-1', emailsSent: 1 })]);
  });

  test('another call of the same request (the customer asking again): the earlier invoice, marked repeated, nothing created', async () => {
    const first = await sendInvoiceAction.execute(input, context({}, 'tc-1'));
    const again = await sendInvoiceAction.execute(input, context({}, 'tc-2'));
    expect(again).toEqual({ ...first, repeated: true });
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
    expect(nangoSandbox.effects()).toEqual([expect.objectContaining({ invoiceId: first.invoiceId, requestId: 'tc-1', emailsSent: 1 })]);
    // Its lookup (after a crash) finds the same invoice by the request's marker.
    expect(await sendInvoiceAction.lookup!(input, context({}, 'tc-2'))).toEqual({ performed: true, result: again });
  });

  test('the same request after a plain success (no earlier effect to look for): a second invoice, and its lookup claims only its own', async () => {
    const fresh = (key: string) => ({ ...context({}, key), lookForEarlierEffect: false });
    const first = await sendInvoiceAction.execute(input, fresh('tc-1'));
    const second = await sendInvoiceAction.execute(input, fresh('tc-2'));
    expect(second.invoiceId).not.toBe(first.invoiceId);
    expect(second.repeated).toBeUndefined();
    expect(nangoSandbox.createdInvoices()).toHaveLength(2);
    expect(await sendInvoiceAction.lookup!(input, fresh('tc-3'))).toEqual({ performed: false });
  });

  test('an earlier invoice of the request whose email failed: the repeat finishes the email, once', async () => {
    server.injectFault('nango', { kind: 'status', status: 503 }, { pathIncludes: '/send' });
    const failed = await partial(sendInvoiceAction.execute(input, context({}, 'tc-1')));
    expect(failed.result).toMatchObject({ invoiceId: '130', emailStatus: 'NotSet', sentTo: null, partial: 'created_not_emailed' });
    const again = await sendInvoiceAction.execute(input, context({}, 'tc-2'));
    expect(again).toMatchObject({ invoiceId: '130', emailStatus: 'EmailSent', sentTo: 'ap@amys.example', repeated: true });
    expect(nangoSandbox.effects()).toEqual([expect.objectContaining({ invoiceId: '130', emailsSent: 1 })]);
  });

  test("without an email, the customer's primary address is used", async () => {
    const result = await sendInvoiceAction.execute({ customerId: QBO_DEMO_CUSTOMERS.amys, amount: 20 }, context());
    expect(result).toMatchObject({ emailStatus: 'EmailSent', sentTo: 'Birds@Intuit.com', currency: 'USD', totalAmount: 20 });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${company}/customer/1`,
      `GET ${company}/query`,
      `POST ${company}/invoice`,
      `POST ${company}/invoice/130/send`,
    ]);
    expect(server.requests[2].body).not.toHaveProperty('CurrencyRef');
    expect(seen[3].query.get('sendTo')).toBe('Birds@Intuit.com');
  });

  test('without any address on file the invoice is created but not emailed', async () => {
    const result = await sendInvoiceAction.execute({ customerId: QBO_DEMO_CUSTOMERS.coolCars, amount: 99.999 }, context());
    expect(result).toEqual({
      invoiceId: '130',
      docNumber: '1037',
      totalAmount: 100,
      currency: 'USD',
      customerId: '3',
      emailStatus: 'NotSet',
      sentTo: null,
    });
    expect(server.requests.some((r) => r.path.endsWith('/send'))).toBe(false);
  });

  test('an unknown customer is a QuickBooks 400 Fault and nothing is created', async () => {
    expect(await httpStatus(sendInvoiceAction.execute({ ...input, customerId: '999' }, context()))).toBe(400);
    expect(await httpStatus(sendInvoiceAction.execute({ customerId: '999', amount: 5 }, context()))).toBe(400);
    expect(nangoSandbox.createdInvoices()).toHaveLength(0);

    const raw = await fetch(`${server.urlFor('nango')}${company}/customer/999`, {
      headers: { authorization: `Bearer ${nangoDemoCredentials.secretKey}`, 'connection-id': 'demo-quickbooks', 'provider-config-key': 'quickbooks' },
    });
    const body = (await raw.json()) as { Fault: { Error: { code: string }[]; type: string } };
    expect(raw.status).toBe(400);
    expect(body.Fault.type).toBe('ValidationFault');
    expect(body.Fault.Error[0].code).toBe('610');
  });

  test("the currency must be the customer's", async () => {
    expect(await httpStatus(sendInvoiceAction.execute({ ...input, currency: 'EUR' }, context()))).toBe(400);
    const euro = await sendInvoiceAction.execute({ customerId: QBO_DEMO_CUSTOMERS.brasserie, amount: 40, currency: 'EUR' }, context({}, 'tc-2'));
    expect(euro).toMatchObject({ currency: 'EUR', emailStatus: 'EmailSent', sentTo: 'compta@brasserie-lumiere.example' });
  });

  test('a send that fails after the create leaves one unsent invoice: a partial action, with the invoice as its result', async () => {
    server.injectFault('nango', { kind: 'status', status: 500 }, { pathIncludes: '/send' });
    const failed = await partial(sendInvoiceAction.execute(input, context()));
    expect(failed.state).toBe('created_not_emailed');
    expect((failed.cause as VendorHttpError).status).toBe(500);
    expect(failed.result).toEqual({
      invoiceId: '130',
      docNumber: '1037',
      totalAmount: 150.5,
      currency: 'USD',
      customerId: '1',
      emailStatus: 'NotSet',
      sentTo: null,
      partial: 'created_not_emailed',
    });
    expect(nangoSandbox.createdInvoices().map((i) => i.EmailStatus)).toEqual(['NotSet']);
  });
});

/** A QuickBooks call straight through the sandbox's Nango proxy (no action code). */
async function qbo(method: 'GET' | 'POST', path: string, query: Record<string, string> = {}, json?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${nangoDemoCredentials.secretKey}`,
    'connection-id': 'demo-quickbooks',
    'provider-config-key': 'quickbooks',
  };
  if (json !== undefined) headers['content-type'] = 'application/json';
  const search = new URLSearchParams({ ...query, minorversion: '75' });
  const response = await fetch(`${server.urlFor('nango')}${company}${path}?${search.toString()}`, {
    method,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, body: await response.json() };
}

const invoiceJson = (customerId: string, amount: number, extra: Record<string, unknown> = {}) => ({
  Line: [{ DetailType: 'SalesItemLineDetail', Amount: amount, SalesItemLineDetail: { ItemRef: { value: '1' } } }],
  CustomerRef: { value: customerId },
  ...extra,
});

describe('the QuickBooks sandbox honours requestid', () => {
  test('a repeated create with the same requestid answers the first invoice and creates none', async () => {
    const first = await qbo('POST', '/invoice', { requestid: 'req-1' }, invoiceJson('1', 10, { PrivateNote: 'toolgate:req-1' }));
    expect(first.status).toBe(200);
    expect(first.body.Invoice).toMatchObject({ Id: '130', DocNumber: '1037', TotalAmt: 10, PrivateNote: 'toolgate:req-1' });
    // Even with another body: the stored first response, no second effect.
    const again = await qbo('POST', '/invoice', { requestid: 'req-1' }, invoiceJson('1', 99));
    expect(again).toEqual(first);
    expect(nangoSandbox.createdInvoices()).toHaveLength(1);

    // Without requestid, or with another one, every POST acts.
    await qbo('POST', '/invoice', {}, invoiceJson('1', 10));
    await qbo('POST', '/invoice', {}, invoiceJson('1', 10));
    await qbo('POST', '/invoice', { requestid: 'req-2' }, invoiceJson('2', 20));
    expect(nangoSandbox.effects().map((e) => [e.invoiceId, e.customerId, e.requestId, e.privateNote])).toEqual([
      ['130', '1', 'req-1', 'toolgate:req-1'],
      ['131', '1', null, null],
      ['132', '1', null, null],
      ['133', '2', 'req-2', null],
    ]);
  });

  test('a repeated send with the same requestid emails once; a send without one emails again', async () => {
    await qbo('POST', '/invoice', { requestid: 'req-1' }, invoiceJson('1', 10));
    const sent = await qbo('POST', '/invoice/130/send', { sendTo: 'a@b.co', requestid: 'req-1-send' });
    expect(sent.body.Invoice).toMatchObject({ EmailStatus: 'EmailSent', SyncToken: '1' });
    expect(await qbo('POST', '/invoice/130/send', { sendTo: 'a@b.co', requestid: 'req-1-send' })).toEqual(sent);
    expect(nangoSandbox.effects()[0].emailsSent).toBe(1);

    await qbo('POST', '/invoice/130/send', { sendTo: 'a@b.co' });
    expect(nangoSandbox.effects()[0].emailsSent).toBe(2);
  });

  test('a refused create is answered the same way again (the first response), still creating nothing', async () => {
    const refused = await qbo('POST', '/invoice', { requestid: 'req-bad' }, invoiceJson('999', 10));
    expect(refused.status).toBe(400);
    const again = await qbo('POST', '/invoice', { requestid: 'req-bad' }, invoiceJson('1', 10));
    expect(again).toEqual(refused);
    expect(nangoSandbox.effects()).toEqual([]);
  });

  test("select * from Invoice where CustomerRef = '<id>': that customer's invoices, paged", async () => {
    for (const [customer, note] of [
      ['1', 'a'],
      ['2', 'b'],
      ['1', 'c'],
      ['1', 'd'],
    ]) {
      await qbo('POST', '/invoice', {}, invoiceJson(customer, 5, { PrivateNote: note }));
    }
    const all = await qbo('GET', '/query', { query: "select * from Invoice where CustomerRef = '1'" });
    expect(all.status).toBe(200);
    expect(all.body.QueryResponse).toMatchObject({ startPosition: 1, maxResults: 3 });
    expect(all.body.QueryResponse.Invoice.map((i: any) => [i.Id, i.CustomerRef.value, i.PrivateNote])).toEqual([
      ['130', '1', 'a'],
      ['132', '1', 'c'],
      ['133', '1', 'd'],
    ]);
    const page = await qbo('GET', '/query', { query: "select * from Invoice where CustomerRef = '1' STARTPOSITION 2 MAXRESULTS 1" });
    expect(page.body.QueryResponse).toMatchObject({ startPosition: 2, maxResults: 1, Invoice: [{ Id: '132' }] });
    const none = await qbo('GET', '/query', { query: "select * from Invoice where CustomerRef = '3'" });
    expect(none.body.QueryResponse).toEqual({});
    const every = await qbo('GET', '/query', { query: 'select * from Invoice' });
    expect(every.body.QueryResponse.Invoice).toHaveLength(4);
  });
});

describe('invoice.send lookup (reconciliation by idempotency key)', () => {
  const input = { customerId: QBO_DEMO_CUSTOMERS.amys, amount: 150.5, currency: 'USD', description: 'Consulting, May', email: 'ap@amys.example' };
  const lookup = sendInvoiceAction.lookup!;

  test('a performed call: the same result execute returned, read without writing', async () => {
    const executed = await sendInvoiceAction.execute(input, context());
    server.requests.length = 0;
    seen.length = 0;
    expect(await lookup(input, context())).toEqual({ performed: true, result: executed });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${company}/query`]);
    expect(seen[0].query.get('query')).toBe("select * from Invoice where CustomerRef = '1' STARTPOSITION 1 MAXRESULTS 1000");
    expect(nangoSandbox.effects()).toEqual([expect.objectContaining({ emailsSent: 1 })]);
  });

  test('an unknown key is not performed, also next to a key that contains it', async () => {
    await sendInvoiceAction.execute(input, context({}, 'tc-10', 'effect-10'));
    expect(await lookup(input, context({}, 'tc-1', 'effect-1'))).toEqual({ performed: false });
    expect(await lookup({ ...input, customerId: QBO_DEMO_CUSTOMERS.billsWindsurf }, context({}, 'tc-10', 'effect-10'))).toEqual({
      performed: false,
    });
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
  });

  test('no address applied: performed, not emailed, exactly what execute returned', async () => {
    const coolCars = { customerId: QBO_DEMO_CUSTOMERS.coolCars, amount: 12 };
    const executed = await sendInvoiceAction.execute(coolCars, context());
    expect(executed).toMatchObject({ emailStatus: 'NotSet', sentTo: null });
    server.requests.length = 0;
    expect(await lookup(coolCars, context())).toEqual({ performed: true, result: executed });
    expect(server.requests.some((r) => r.method === 'POST')).toBe(false);
  });

  test('created but not emailed (the crash came between create and send): emailed once, however often looked up', async () => {
    server.injectFault('nango', { kind: 'status', status: 500 }, { pathIncludes: '/send' });
    await partial(sendInvoiceAction.execute(input, context()));
    expect(nangoSandbox.effects()).toEqual([expect.objectContaining({ invoiceId: '130', emailsSent: 0 })]);

    seen.length = 0;
    const first = await lookup(input, context());
    expect(first).toEqual({
      performed: true,
      result: {
        invoiceId: '130',
        docNumber: '1037',
        totalAmount: 150.5,
        currency: 'USD',
        customerId: '1',
        emailStatus: 'EmailSent',
        sentTo: 'ap@amys.example',
      },
    });
    const send = seen.find((r) => r.path.endsWith('/send'))!;
    expect(Object.fromEntries(send.query)).toEqual({ sendTo: 'ap@amys.example', requestid: 'tc-1-send', minorversion: '75' });

    for (let i = 0; i < 3; i++) expect(await lookup(input, context())).toEqual(first);
    expect(nangoSandbox.createdInvoices()).toHaveLength(1);
    expect(nangoSandbox.effects()).toEqual([expect.objectContaining({ invoiceId: '130', requestId: 'tc-1', emailsSent: 1 })]);
  });

  test("created without an explicit email: the customer's address the invoice was billed to is used", async () => {
    const noEmail = { customerId: QBO_DEMO_CUSTOMERS.billsWindsurf, amount: 30 };
    server.injectFault('nango', { kind: 'reset' }, { pathIncludes: '/send' });
    await expect(sendInvoiceAction.execute(noEmail, context())).rejects.toThrow();
    const found = await lookup(noEmail, context());
    expect(found).toMatchObject({ performed: true, result: { emailStatus: 'EmailSent', sentTo: 'Surf@Intuit.com' } });
    expect(nangoSandbox.effects()).toEqual([expect.objectContaining({ emailsSent: 1 })]);
  });

  test('reads every page of a customer with many invoices', async () => {
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(Array.from({ length: 100 }, () => qbo('POST', '/invoice', {}, invoiceJson('1', 1))));
    }
    const executed = await sendInvoiceAction.execute(input, context());
    seen.length = 0;
    expect(await lookup(input, context())).toEqual({ performed: true, result: executed });
    expect(seen.map((r) => r.query.get('query'))).toEqual([
      "select * from Invoice where CustomerRef = '1' STARTPOSITION 1 MAXRESULTS 1000",
      "select * from Invoice where CustomerRef = '1' STARTPOSITION 1001 MAXRESULTS 1000",
    ]);
    expect(await lookup(input, context({}, 'tc-404', 'effect-404'))).toEqual({ performed: false });
  });

  test('a customer id is quoted as a QuickBooks literal', async () => {
    seen.length = 0;
    expect(await lookup({ ...input, customerId: "1' or Id = '2" }, context())).toEqual({ performed: false });
    expect(seen[0].query.get('query')).toBe("select * from Invoice where CustomerRef = '1\\' or Id = \\'2' STARTPOSITION 1 MAXRESULTS 1000");
  });

  test('a 503 on the invoice query (a fault aimed at it alone) propagates: the vendor cannot tell', async () => {
    await sendInvoiceAction.execute(input, context());
    server.injectFault('nango', { kind: 'status', status: 503 }, { pathIncludes: 'select * from Invoice' });
    // Other /query calls do not match the fault.
    expect((await accountBalanceAction.execute({}, context())).accounts).toHaveLength(6);
    expect(await httpStatus(lookup(input, context()))).toBe(503);
    expect(server.requests.map((r) => r.fault)).toEqual([null, null, null, null, 'status']);

    server.injectFault('nango', { kind: 'malformed_json' }, { pathIncludes: 'from Invoice where CustomerRef' });
    expect(await rejection(lookup(input, context()))).toBeInstanceOf(VendorProtocolError);
  });
});

describe('Nango authentication and connection checks', () => {
  test('a wrong or malformed secret key is a 401', async () => {
    expect(await httpStatus(accountBalanceAction.execute({}, context({ secretKey: '0e5b7a4c-1d2e-4f3a-8b4c-5d6e7f8a9b0c' })))).toBe(401);
    expect(await httpStatus(accountBalanceAction.execute({}, context({ secretKey: 'not-a-uuid' })))).toBe(401);
    expect(await httpStatus(sendInvoiceAction.execute({ customerId: '1', amount: 1, email: 'a@b.co' }, context({ secretKey: 'nope' })))).toBe(401);
    expect(nangoSandbox.createdInvoices()).toHaveLength(0);
  });

  test('an unknown integration is a 404, an unknown connection a 400, another company a 403', async () => {
    expect(await httpStatus(accountBalanceAction.execute({}, context({ providerConfigKey: 'xero' })))).toBe(404);
    expect(await httpStatus(accountBalanceAction.execute({}, context({ connectionId: 'someone-else' })))).toBe(400);
    expect(await httpStatus(accountBalanceAction.execute({}, context({ realmId: '4620816365000000000' })))).toBe(403);
  });

  test('the sandbox answers like Nango for missing headers', async () => {
    const url = `${server.urlFor('nango')}${company}/query?query=select%20*%20from%20Account`;
    const noAuth = await fetch(url);
    expect(noAuth.status).toBe(401);
    expect(await noAuth.json()).toEqual({
      error: { message: 'Authentication failed. The request is missing the Authorization header.', payload: {}, code: 'missing_auth_header' },
    });
    const noHeaders = await fetch(url, { headers: { authorization: `Bearer ${nangoDemoCredentials.secretKey}` } });
    expect(noHeaders.status).toBe(400);
    const body = (await noHeaders.json()) as { error: { code: string; errors: { path: string[] }[] } };
    expect(body.error.code).toBe('invalid_headers');
    expect(body.error.errors.map((e) => e.path[0])).toEqual(['provider-config-key', 'connection-id']);
  });

  test('a credential without a numeric realmId is refused before any request', async () => {
    await expect(accountBalanceAction.execute({}, context({ realmId: '../../admin' }))).rejects.toThrow('realmId');
    expect(server.requests).toHaveLength(0);
  });
});

describe('Nango faults', () => {
  test('a 500 is a VendorHttpError 500', async () => {
    server.injectFault('nango', { kind: 'status', status: 500 });
    const error = await rejection(accountBalanceAction.execute({}, context()));
    expect((error as VendorHttpError).status).toBe(500);
    expect((error as Error).message).not.toContain('vendor-internal-trace-xyz');
  });

  test('a rate limit with an HTTP-date Retry-After is a 429 with retryAfterMs ≈ 3000', async () => {
    server.injectFault('nango', { kind: 'rate_limit', retryAfter: 'http_date', seconds: 3 });
    const error = await rejection(accountBalanceAction.execute({}, context()));
    expect(error).toBeInstanceOf(VendorHttpError);
    expect((error as VendorHttpError).status).toBe(429);
    expect(Math.abs(((error as VendorHttpError).retryAfterMs ?? -1) - 3000)).toBeLessThanOrEqual(1500);
  });

  test('malformed JSON is a VendorProtocolError', async () => {
    server.injectFault('nango', { kind: 'malformed_json' });
    expect(await rejection(accountBalanceAction.execute({}, context()))).toBeInstanceOf(VendorProtocolError);
    server.injectFault('nango', { kind: 'malformed_json' }, { pathIncludes: '/invoice' });
    const invoice = sendInvoiceAction.execute({ customerId: '1', amount: 1, email: 'a@b.co' }, context());
    expect(await rejection(invoice)).toBeInstanceOf(VendorProtocolError);
  });
});

describe('nangoHandler', () => {
  test('declares its endpoint, credential and actions in line with the catalog', () => {
    expect(nangoHandler.vendor).toBe('nango');
    const required = ['secretKey', 'connectionId', 'providerConfigKey', 'realmId'];
    expect(nangoHandler.credentialSpec).toEqual({ integrationType: 'nango', required });
    expect(nangoHandler.endpoints.api).toMatchObject({ env: 'NANGO_API_URL' });
    expect(nangoHandler.endpoints.api.production({})).toBe('https://api.nango.dev');
    expect(nangoHandler.actions.map((a) => [toolKey(a.toolName, a.action), a.idempotent])).toEqual([
      ['account_balance.lookup', true],
      ['invoice.send', false],
    ]);
    expect(nangoHandler.actions.map((a) => [toolKey(a.toolName, a.action), typeof a.lookup])).toEqual([
      ['account_balance.lookup', 'undefined'],
      ['invoice.send', 'function'],
    ]);
    for (const action of nangoHandler.actions) {
      const entry = TOOL_CATALOG.find((e) => e.toolName === action.toolName && e.action === action.action);
      expect(entry?.vendor).toBe('nango');
      expect(action.idempotent).toBe(entry?.idempotent);
    }
  });
});
