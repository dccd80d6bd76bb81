import { SandboxServer, type SandboxRequest, type VendorSandbox } from '../../src/vendors/sandbox/sandbox-server';
import { VendorHttpError, VendorProtocolError, type VendorContext } from '../../src/vendors/vendor-handler';
import { nangoHandler } from '../../src/vendors/nango/nango.handler';
import { accountBalanceAction } from '../../src/vendors/nango/account-balance.action';
import { sendInvoiceAction } from '../../src/vendors/nango/send-invoice.action';
import { QBO_DEMO_CUSTOMERS, QBO_DEMO_REALM_ID, nangoDemoCredentials, nangoSandbox } from '../../src/vendors/nango/nango.sandbox';
import { TOOL_CATALOG } from '../../src/catalog/tool-catalog';

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

let server: SandboxServer;
const company = `/proxy/v3/company/${QBO_DEMO_REALM_ID}`;

beforeAll(async () => {
  server = new SandboxServer([recording]);
  await server.start();
});

afterAll(() => server.stop());

beforeEach(() => {
  server.clearFaults();
  server.requests.length = 0;
  seen.length = 0;
  nangoSandbox.reset();
});

function context(credentials: Record<string, unknown> = {}): VendorContext {
  return {
    credentials: { ...nangoDemoCredentials, ...credentials },
    urls: { api: server.urlFor('nango') },
    signal: new AbortController().signal,
    idempotencyKey: 'tc-1',
    cache: new Map(),
  };
}

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => Promise.reject(new Error('expected a rejection')),
    (error: unknown) => error,
  );

async function httpStatus(promise: Promise<unknown>): Promise<number> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(VendorHttpError);
  return (error as VendorHttpError).status;
}

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

  test('creates the invoice, then sends it to the given address', async () => {
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

    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${company}/invoice`, `POST ${company}/invoice/130/send`]);
    const [create, send] = server.requests;
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
    });
    expect(Object.fromEntries(seen[0].query)).toEqual({ minorversion: '75' });
    expect(send.headers['content-type']).toBe('application/octet-stream');
    expect(send.body).toBeNull();
    expect(Object.fromEntries(seen[1].query)).toEqual({ sendTo: 'ap@amys.example', minorversion: '75' });
    expect(seen.some((r) => r.query.has('requestid'))).toBe(false);

    const [invoice] = nangoSandbox.createdInvoices();
    expect(invoice).toMatchObject({ Id: '130', EmailStatus: 'EmailSent', BillEmail: { Address: 'ap@amys.example' }, TotalAmt: 150.5 });
  });

  test('is not idempotent: two calls create two invoices', async () => {
    const first = await sendInvoiceAction.execute(input, context());
    const second = await sendInvoiceAction.execute(input, context());
    expect(second.invoiceId).not.toBe(first.invoiceId);
    expect(second.docNumber).not.toBe(first.docNumber);
    expect(nangoSandbox.createdInvoices().map((i) => i.Id)).toEqual([first.invoiceId, second.invoiceId]);
    expect(server.requests.filter((r) => r.path === `${company}/invoice`)).toHaveLength(2);
  });

  test("without an email, the customer's primary address is used", async () => {
    const result = await sendInvoiceAction.execute({ customerId: QBO_DEMO_CUSTOMERS.amys, amount: 20 }, context());
    expect(result).toMatchObject({ emailStatus: 'EmailSent', sentTo: 'Birds@Intuit.com', currency: 'USD', totalAmount: 20 });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${company}/customer/1`,
      `POST ${company}/invoice`,
      `POST ${company}/invoice/130/send`,
    ]);
    expect(server.requests[1].body).not.toHaveProperty('CurrencyRef');
    expect(seen[2].query.get('sendTo')).toBe('Birds@Intuit.com');
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
    const euro = await sendInvoiceAction.execute({ customerId: QBO_DEMO_CUSTOMERS.brasserie, amount: 40, currency: 'EUR' }, context());
    expect(euro).toMatchObject({ currency: 'EUR', emailStatus: 'EmailSent', sentTo: 'compta@brasserie-lumiere.example' });
  });

  test('a send that fails after the create leaves one unsent invoice (why it must not be retried blindly)', async () => {
    server.injectFault('nango', { kind: 'status', status: 500 }, { pathIncludes: '/send' });
    expect(await httpStatus(sendInvoiceAction.execute(input, context()))).toBe(500);
    expect(nangoSandbox.createdInvoices().map((i) => i.EmailStatus)).toEqual(['NotSet']);
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
    expect(nangoHandler.actions.map((a) => [`${a.toolName}.${a.action}`, a.idempotent])).toEqual([
      ['account_balance.lookup', true],
      ['invoice.send', false],
    ]);
    for (const action of nangoHandler.actions) {
      const entry = TOOL_CATALOG.find((e) => e.toolName === action.toolName && e.action === action.action);
      expect(entry?.vendor).toBe('nango');
      expect(action.idempotent).toBe(entry?.idempotent);
    }
  });
});
