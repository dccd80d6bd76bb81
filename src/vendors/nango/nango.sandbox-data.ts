/**
 * Demo data of the QuickBooks Online company behind the Nango sandbox, shaped like the
 * Accounting API's Account, Customer and Item entities (names follow Intuit's sandbox
 * company).
 */
export const QBO_DEMO_REALM_ID = '9130357992221046';

export const QBO_DEMO_CUSTOMERS = {
  /** Has a primary email address, USD. */
  amys: '1',
  /** Has a primary email address, USD. */
  billsWindsurf: '2',
  /** No email address on file, USD. */
  coolCars: '3',
  /** EUR customer: invoices must be in EUR. */
  brasserie: '58',
} as const;

/** The demo company's currencies by ISO 4217 code, with the names QuickBooks gives them. */
export const CURRENCY_NAMES: Record<string, string> = { USD: 'United States Dollar', EUR: 'Euro' };

/** A CurrencyRef as QuickBooks returns it. */
const currencyRef = (value: string) => ({ value, name: CURRENCY_NAMES[value] });
const usd = currencyRef('USD');
const eur = currencyRef('EUR');

export type QboEntity = Record<string, unknown> & { Id: string };

const metadata = { CreateTime: '2024-11-04T16:12:41-08:00', LastUpdatedTime: '2025-02-18T09:30:12-08:00' };

function account(id: string, name: string, accountType: string, accountSubType: string, classification: string, balance: number): QboEntity {
  return {
    Id: id,
    Name: name,
    SubAccount: false,
    FullyQualifiedName: name,
    Active: true,
    Classification: classification,
    AccountType: accountType,
    AccountSubType: accountSubType,
    CurrentBalance: balance,
    CurrentBalanceWithSubAccounts: balance,
    CurrencyRef: usd,
    domain: 'QBO',
    sparse: false,
    SyncToken: '0',
    MetaData: metadata,
  };
}

export function seedAccounts(): QboEntity[] {
  return [
    account('35', 'Checking', 'Bank', 'Checking', 'Asset', 1201.0),
    account('36', 'Savings', 'Bank', 'Savings', 'Asset', 800.0),
    account('84', 'Accounts Receivable (A/R)', 'Accounts Receivable', 'AccountsReceivable', 'Asset', 5281.52),
    account('4', 'Undeposited Funds', 'Other Current Asset', 'UndepositedFunds', 'Asset', 2062.52),
    account('33', 'Accounts Payable (A/P)', 'Accounts Payable', 'AccountsPayable', 'Liability', 1602.67),
    account('41', 'Mastercard', 'Credit Card', 'CreditCard', 'Liability', 157.72),
  ];
}

function customer(id: string, displayName: string, email: string | null, currency: typeof usd, balance: number): QboEntity {
  return {
    Id: id,
    DisplayName: displayName,
    FullyQualifiedName: displayName,
    CompanyName: displayName,
    PrintOnCheckName: displayName,
    Active: true,
    Taxable: false,
    Job: false,
    BillWithParent: false,
    Balance: balance,
    BalanceWithJobs: balance,
    CurrencyRef: currency,
    PreferredDeliveryMethod: email ? 'Email' : 'Print',
    ...(email ? { PrimaryEmailAddr: { Address: email } } : {}),
    domain: 'QBO',
    sparse: false,
    SyncToken: '0',
    MetaData: metadata,
  };
}

export function seedCustomers(): QboEntity[] {
  return [
    customer(QBO_DEMO_CUSTOMERS.amys, "Amy's Bird Sanctuary", 'Birds@Intuit.com', usd, 239.0),
    customer(QBO_DEMO_CUSTOMERS.billsWindsurf, "Bill's Windsurf Shop", 'Surf@Intuit.com', usd, 85.0),
    customer(QBO_DEMO_CUSTOMERS.coolCars, 'Cool Cars', null, usd, 0),
    customer(QBO_DEMO_CUSTOMERS.brasserie, 'Brasserie Lumière', 'compta@brasserie-lumiere.example', eur, 0),
  ];
}

export function seedItems(): QboEntity[] {
  return [
    { Id: '1', Name: 'Services', Type: 'Service', Active: true, UnitPrice: 0 },
    { Id: '2', Name: 'Hours', Type: 'Service', Active: true, UnitPrice: 0 },
  ];
}
