import { randomBytes } from 'node:crypto';
import { REPLIES, describeToolResult } from './offline-model.replies';
import type { BrainResponse, ContentBlockParam, MessageParam, MessagesRequest, ToolResultBlockParam } from './offline-model.types';

/**
 * The offline model's "brain": a deterministic stand-in for Claude. It reads only the last
 * user message. Tool results become a reply built from the results; otherwise the user's
 * words pick at most one tool (and only one the request offers). Texts never vary; only
 * tool_use ids are random.
 */
export const OFFLINE_TOOLS = {
  orderLookup: 'order_lookup__lookup',
  product: 'shopify_query__get_product',
  amazonOrder: 'amazon_query__get_order',
  kyc: 'kyc_check__get_status',
  balance: 'account_balance__lookup',
  invoice: 'invoice__send',
} as const;

type Intent =
  | { kind: 'tool'; tool: string; input: Record<string, unknown>; preface: string; fallbackTool?: string }
  | { kind: 'reply'; text: string };

const tool = (name: string, input: Record<string, unknown>, preface: string = REPLIES.preface): Intent => ({
  kind: 'tool',
  tool: name,
  input,
  preface,
});
const reply = (text: string): Intent => ({ kind: 'reply', text });

const has = (text: string, pattern: RegExp) => pattern.test(text);

// ---- intents, tried in this order -------------------------------------------------------

const KYC_WORDS = /\b(identity|kyc|verification|verifications|verify|verified|id check)\b/i;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** The first token after a label that looks like an id (it holds a digit). */
function labeledId(text: string, label: RegExp): string | null {
  for (const match of text.matchAll(label)) {
    if (/\d/.test(match[1])) return match[1].replace(/[.,;:]+$/, '');
  }
  return null;
}

function kycIntent(text: string): Intent | null {
  if (!has(text, KYC_WORDS)) return null;
  let accountId = labeledId(text, /\baccount(?:[\s_-]+id)?\s*[:#=]?\s*([A-Za-z0-9][\w-]*)/gi);
  let workflowExecutionId = labeledId(text, /\b(?:workflow(?:[\s_-]+execution)?|execution)(?:[\s_-]+id)?\s*[:#=]?\s*([A-Za-z0-9][\w-]*)/gi);
  const uuids = [...text.matchAll(UUID)].map((m) => m[0]).filter((id) => id !== accountId && id !== workflowExecutionId);
  if (!accountId) accountId = uuids.shift() ?? null;
  if (!workflowExecutionId) workflowExecutionId = uuids.shift() ?? null;
  if (!accountId || !workflowExecutionId || accountId === workflowExecutionId) return reply(REPLIES.askKycIds);
  return tool(OFFLINE_TOOLS.kyc, { accountId, workflowExecutionId });
}

const CURRENCY_CODES = 'usd|eur|gbp|cad|aud|chf|jpy|nzd|sek|nok|dkk|mxn|inr';
const AMOUNT = '(\\d{1,3}(?:,\\d{3})+(?:\\.\\d{1,2})?|\\d+(?:\\.\\d{1,2})?)';

/** The invoice amount and, when the user was explicit, its ISO currency ("$" stays unset). */
export function parseAmount(text: string): { amount: number; currency?: string } | null {
  const toNumber = (raw: string) => Number(raw.replace(/,/g, ''));
  const symbol = new RegExp(`([$€£])\\s?${AMOUNT}`).exec(text);
  if (symbol) {
    const currency = symbol[1] === '€' ? 'EUR' : symbol[1] === '£' ? 'GBP' : undefined;
    return { amount: toNumber(symbol[2]), ...(currency ? { currency } : {}) };
  }
  const suffix = new RegExp(`\\b${AMOUNT}\\s?(${CURRENCY_CODES})\\b`, 'i').exec(text);
  if (suffix) return { amount: toNumber(suffix[1]), currency: suffix[2].toUpperCase() };
  const prefix = new RegExp(`\\b(${CURRENCY_CODES})\\s?${AMOUNT}`, 'i').exec(text);
  if (prefix) return { amount: toNumber(prefix[2]), currency: prefix[1].toUpperCase() };
  const decimal = /(?<![\w#.,-])(\d{1,3}(?:,\d{3})+\.\d{1,2}|\d+\.\d{1,2})\b/.exec(text);
  if (decimal) return { amount: toNumber(decimal[1]) };
  const forAmount = new RegExp(`\\bfor\\s+${AMOUNT}\\b(?!\\s*(?:items?|units?))`, 'i').exec(text);
  if (forAmount) return { amount: toNumber(forAmount[1]) };
  return null;
}

function invoiceIntent(text: string): Intent | null {
  if (!has(text, /\binvoices?\b/i)) return null;
  const customerId = labeledId(text, /\bcustomer(?:[\s_-]+(?:id|number|no\.?))?\s*[:#=]?\s*([A-Za-z0-9][\w-]*)/gi);
  const withoutCustomer = customerId ? text.replace(new RegExp(`customer[^\\d]*${customerId}`, 'i'), ' ') : text;
  const amount = parseAmount(withoutCustomer);
  if (!customerId || !amount || !(amount.amount > 0)) return reply(REPLIES.askInvoice);
  return tool(OFFLINE_TOOLS.invoice, { customerId, ...amount }, REPLIES.prefaceAction);
}

const ORDER_WORDS = /\b(orders?|status|shipped|shipping|ship|tracking|track|delivery|delivered)\b/i;
const PRODUCT_WORDS = /\b(products?|price|priced|prices|cost|costs|stock|inventory)\b/i;
const AMAZON_ORDER = /\b(\d{3}-\d{7}-\d{7})\b/;

function orderIntent(text: string): Intent | null {
  const amazon = AMAZON_ORDER.exec(text);
  if (amazon && (has(text, ORDER_WORDS) || has(text, /\bamazon\b/i))) {
    return { ...tool(OFFLINE_TOOLS.amazonOrder, { orderId: amazon[1] }), fallbackTool: OFFLINE_TOOLS.orderLookup } as Intent;
  }
  const mentionsOrder = has(text, /\borders?\b/i);
  if (!mentionsOrder && (!has(text, ORDER_WORDS) || has(text, PRODUCT_WORDS))) return null;
  const number = /#\s?(\d{1,20})\b/.exec(text) ?? /\b(\d{4,20})\b/.exec(text);
  if (number) return tool(OFFLINE_TOOLS.orderLookup, { orderId: number[1] });
  return mentionsOrder ? reply(REPLIES.askOrderNumber) : null;
}

function productIntent(text: string): Intent | null {
  if (!has(text, PRODUCT_WORDS)) return null;
  const id = /\bproduct(?:[\s_-]+id)?\s*[:#=]?\s*(\d{1,20})\b/i.exec(text) ?? /(?<![$€£\d.,])#?\b(\d{1,20})\b(?![.,]\d)/.exec(text);
  if (!id) return reply(REPLIES.askProductId);
  return tool(OFFLINE_TOOLS.product, { productId: id[1] });
}

const KNOWN_ACCOUNTS = /\b(checking|savings|credit card|petty cash|undeposited funds|money market|payroll|operating)\b/i;
const NOT_ACCOUNT_NAMES = new Set([
  'my',
  'the',
  'a',
  'an',
  'our',
  'your',
  'this',
  'that',
  'which',
  'all',
  'every',
  'each',
  'bank',
  'an',
  'whole',
  'entire',
  'of',
  'in',
  'per',
]);

/** "checking" → "Checking", "credit card" → "Credit Card". */
const titleCase = (name: string) => name.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase());

function balanceIntent(text: string): Intent | null {
  const known = KNOWN_ACCOUNTS.exec(text);
  if (!has(text, /\b(balances?|accounts?)\b|how much money/i) && !(known && has(text, /\bhow much\b/i))) return null;
  const named = /\b([A-Za-z][\w-]*) account\b/i.exec(text);
  const accountName = known ? titleCase(known[1]) : named && !NOT_ACCOUNT_NAMES.has(named[1].toLowerCase()) ? titleCase(named[1]) : null;
  return tool(OFFLINE_TOOLS.balance, accountName ? { accountName } : {});
}

const INTENTS: ((text: string) => Intent | null)[] = [kycIntent, invoiceIntent, orderIntent, productIntent, balanceIntent];

function smallTalk(text: string): string {
  if (/^\s*(hi|hello|hey|good (morning|afternoon|evening))\b/i.test(text)) return REPLIES.greeting;
  if (/\b(thanks|thank you|thx)\b/i.test(text)) return REPLIES.thanks;
  return REPLIES.fallback;
}

// ---- request reading ---------------------------------------------------------------------

const blocksOf = (message: MessageParam): ContentBlockParam[] =>
  typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;

function textOf(message: MessageParam): string {
  return blocksOf(message)
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** The tool name of each tool_use id in the conversation. */
function toolUseNames(messages: MessageParam[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const block of blocksOf(message)) {
      if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') names.set(block.id, block.name);
    }
  }
  return names;
}

export function newToolUseId(): string {
  return `toolu_${randomBytes(12).toString('hex')}`;
}

const textReply = (text: string): BrainResponse => ({ content: [{ type: 'text', text }], stopReason: 'end_turn' });

/** Picks the reply for the last user turn; see the file comment for the rules. */
export function respond(request: MessagesRequest): BrainResponse {
  const last = [...request.messages].reverse().find((m) => m.role === 'user');
  if (!last) return textReply(REPLIES.greeting);

  const results = blocksOf(last).filter((b): b is ToolResultBlockParam => b.type === 'tool_result');
  if (results.length > 0) {
    const names = toolUseNames(request.messages);
    return textReply(results.map((r) => describeToolResult(r, names.get(r.tool_use_id) ?? null)).join(' '));
  }

  const text = textOf(last);
  const available = new Set((request.tools ?? []).map((t) => t.name));
  for (const intentOf of INTENTS) {
    const intent = intentOf(text);
    if (!intent) continue;
    if (intent.kind === 'reply') return textReply(intent.text);
    const name = available.has(intent.tool) ? intent.tool : intent.fallbackTool && available.has(intent.fallbackTool) ? intent.fallbackTool : null;
    if (!name) return textReply(REPLIES.noTool);
    return {
      content: [
        { type: 'text', text: intent.preface },
        { type: 'tool_use', id: newToolUseId(), name, input: intent.input },
      ],
      stopReason: 'tool_use',
    };
  }
  return textReply(smallTalk(text));
}
