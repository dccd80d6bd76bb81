import { VendorProtocolError, type VendorAction, type VendorContext } from '../vendor-handler';
import { quickbooksRequest } from './nango.transport';

/**
 * account_balance.lookup: QuickBooks Online accounts and their current balances.
 *
 * GET /proxy/v3/company/{realmId}/query?query=select * from Account [where Name LIKE '%…%']
 * MAXRESULTS 1000&minorversion=75 (QuickBooks Accounting API, Account entity / query
 * operation) → { QueryResponse: { Account: [{ Id, Name, AccountType, Classification,
 * CurrentBalance, CurrencyRef: { value } }] } }; QueryResponse is `{}` when nothing matches.
 */
export interface AccountBalanceInput {
  accountName?: string;
}

export interface AccountBalance {
  id: string;
  name: string;
  accountType: string;
  /** Asset, Liability, Equity, Revenue or Expense. */
  classification: string | null;
  currentBalance: number;
  currency: string;
}

export interface AccountBalanceResult {
  accounts: AccountBalance[];
  /** Sum of currentBalance, only when every account shares one currency and classification; else null. */
  totalBalance: number | null;
}

const MAX_RESULTS = 1000;
const CURRENCY = /^[A-Z]{3}$/;
const IDENTIFIER = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function invalid(): never {
  throw new VendorProtocolError(200);
}

/** A QuickBooks query string literal: `\` and `'` escaped with a backslash, `%` wildcards removed. */
function likeLiteral(name: string): string {
  const cleaned = name.replace(/%/g, '').replace(/[\\']/g, (c) => `\\${c}`);
  return `'%${cleaned}%'`;
}

export function accountQuery(accountName?: string): string {
  const name = accountName?.trim();
  const where = name ? ` where Name LIKE ${likeLiteral(name)}` : '';
  return `select * from Account${where} MAXRESULTS ${MAX_RESULTS}`;
}

function account(value: unknown): AccountBalance {
  if (!isObject(value)) invalid();
  const { Id, Name, AccountType, Classification, CurrentBalance, CurrencyRef } = value;
  if (typeof Id !== 'string' || !/^\d{1,20}$/.test(Id)) invalid();
  if (typeof Name !== 'string' || Name === '') invalid();
  if (typeof AccountType !== 'string' || AccountType === '') invalid();
  if (Classification !== undefined && (typeof Classification !== 'string' || !IDENTIFIER.test(Classification))) invalid();
  if (typeof CurrentBalance !== 'number' || !Number.isFinite(CurrentBalance)) invalid();
  if (!isObject(CurrencyRef) || typeof CurrencyRef.value !== 'string' || !CURRENCY.test(CurrencyRef.value)) invalid();
  return {
    id: Id,
    name: Name.slice(0, 256),
    accountType: AccountType.slice(0, 64),
    classification: typeof Classification === 'string' ? Classification : null,
    currentBalance: CurrentBalance,
    currency: CurrencyRef.value,
  };
}

function total(accounts: AccountBalance[]): number | null {
  if (accounts.length === 0) return null;
  const [first] = accounts;
  const uniform = accounts.every((a) => a.currency === first.currency && a.classification === first.classification);
  if (!uniform) return null;
  const cents = accounts.reduce((sum, a) => sum + Math.round(a.currentBalance * 100), 0);
  return cents / 100;
}

export const accountBalanceAction: VendorAction<AccountBalanceInput, AccountBalanceResult> = {
  toolName: 'account_balance',
  action: 'lookup',
  description: 'Look up QuickBooks account balances (through Nango).',
  inputSchema: {
    type: 'object',
    properties: { accountName: { type: 'string', maxLength: 128, description: 'Optional account name filter' } },
    additionalProperties: false,
  },
  defaultRisk: 'medium',
  costCents: 1,
  idempotent: true,
  describeResult:
    '{ accounts: [{ id, name, accountType (e.g. Bank, Accounts Receivable, Credit Card), ' +
    'classification: Asset | Liability | Equity | Revenue | Expense | null, currentBalance: number, currency: ISO 4217 }], ' +
    'totalBalance: number | null (sum only when all accounts share one currency and classification) }',

  async execute(input: AccountBalanceInput, ctx: VendorContext): Promise<AccountBalanceResult> {
    const body = await quickbooksRequest<unknown>(ctx, {
      method: 'GET',
      path: '/query',
      query: { query: accountQuery(input.accountName) },
    });
    if (!isObject(body) || !isObject(body.QueryResponse)) invalid();
    const rows = body.QueryResponse.Account ?? [];
    if (!Array.isArray(rows)) invalid();
    const accounts = rows.map(account);
    return { accounts, totalBalance: total(accounts) };
  },
};
