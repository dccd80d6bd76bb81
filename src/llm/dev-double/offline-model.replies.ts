import type { ToolResultBlockParam } from './offline-model.types';

/**
 * The offline model's fixed sentences, and how it turns tool results (the JSON the gateway
 * returned for a tool call) into a reply. Everything here is deterministic.
 */
export const REPLIES = {
  preface: 'Let me look that up for you.',
  prefaceAction: 'Let me take care of that for you.',
  noTool: "I don't have access to that tool in this conversation.",
  approval: "I've prepared this action for expert review. You'll receive an update once it's approved.",
  askOrderNumber: 'Could you share your order number? Then I can check its status.',
  askProductId: 'Which product do you mean? Please share the product ID.',
  askKycIds: 'To check the identity verification I need the account ID and the workflow execution ID. Could you share both?',
  askInvoice: 'To send an invoice I need the customer ID and the amount. Could you share both?',
  greeting: 'Hello! I can check orders, products, account balances and identity verifications, and send invoices. How can I help?',
  thanks: "You're welcome! Is there anything else I can help with?",
  fallback: "I'm here to help with orders, products, account balances, identity verifications and invoices. What would you like to do?",
  unable: (sentence: string) => `I'm unable to do that right now: ${sentence}. Let me connect you with an Expert.`,
} as const;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;

/** "a", "a and b", "a, b and c". */
export function joinList(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** 1234.5 → "1,234.50" (locale-independent). */
export function money(value: number): string {
  const sign = value < 0 ? '-' : '';
  const [whole, cents] = Math.abs(value).toFixed(2).split('.');
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}

/** The text of a tool_result's content (a string or text blocks). */
export function resultText(block: ToolResultBlockParam): string {
  const content = block.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part && part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const FULFILLMENT: Record<string, string> = {
  fulfilled: 'shipped',
  shipped: 'shipped',
  partial: 'partially shipped',
  partially_fulfilled: 'partially shipped',
  on_hold: 'on hold',
  restocked: 'restocked',
};

function describeOrder(o: Json): string {
  const rawNumber = str(o.orderNumber) ?? str(o.orderId) ?? str(o.name) ?? '';
  const label = /^\d+$/.test(rawNumber) ? `#${rawNumber}` : rawNumber;
  const head = label ? `I've looked up order ${label}.` : "I've looked up your order.";
  if (o.status === 'cancelled') return `${head} It has been cancelled.`;
  const fulfillment = str(o.fulfillmentStatus)?.toLowerCase() ?? '';
  const phrase = FULFILLMENT[fulfillment];
  if (!phrase) return `${head} It's not shipped yet.`;
  const tracking = Array.isArray(o.trackingNumbers) ? o.trackingNumbers.filter((t): t is string => typeof t === 'string' && t !== '') : [];
  const carrier = str(o.trackingCompany);
  let sentence = `${head} It's currently ${phrase}`;
  if (carrier) sentence += ` via ${carrier}`;
  if (tracking.length === 1) sentence += ` with tracking number ${tracking[0]}`;
  if (tracking.length > 1) sentence += ` with tracking numbers ${joinList(tracking)}`;
  return `${sentence}.`;
}

function describeProduct(p: Json): string {
  const title = str(p.title) ?? 'product';
  const price = num(p.price);
  const stock = num(p.totalInventory);
  const stockText = stock === null ? null : stock <= 0 ? 'it is out of stock' : stock === 1 ? '1 unit is in stock' : `${stock} units are in stock`;
  if (price !== null) return `The ${title} starts at $${money(price)}${stockText ? ` and ${stockText}` : ''}.`;
  return stockText ? `For the ${title}, ${stockText}.` : `I found the ${title}, but it has no price or stock information.`;
}

function describeAmazonOrder(o: Json): string {
  const items = Array.isArray(o.items) ? o.items : [];
  const quantities = items.map((item) => (isObject(item) ? num(item.quantityOrdered) : null));
  const count = quantities.every((q) => q !== null) ? quantities.reduce<number>((sum, q) => sum + (q ?? 0), 0) : items.length;
  return `Amazon order ${str(o.orderId) ?? ''} is ${str(o.status) ?? 'Unknown'} (${count} ${count === 1 ? 'item' : 'items'}).`;
}

function describeBalances(b: Json): string {
  const accounts = (Array.isArray(b.accounts) ? b.accounts : []).filter(isObject);
  if (accounts.length === 0) return "I couldn't find any matching accounts.";
  const line = (a: Json) => `${str(a.name) ?? 'Account'}: ${money(num(a.currentBalance) ?? 0)} ${str(a.currency) ?? ''}`.trim();
  if (accounts.length === 1) return `The balance of ${line(accounts[0]).replace(': ', ' is ')}.`;
  const total = num(b.totalBalance);
  const currency = str(accounts[0].currency) ?? '';
  const totalText = total === null ? '' : `${` Total: ${money(total)} ${currency}`.trimEnd()}.`;
  return `Here are your account balances: ${accounts.map(line).join('; ')}.${totalText}`;
}

function describeKyc(k: Json): string {
  const status = str(k.status) ?? 'UNKNOWN';
  const decision = isObject(k.decision) ? str(k.decision.type) : null;
  if (!decision) return `The identity verification is ${status}; there is no decision yet.`;
  return `The identity verification is ${status} with decision ${decision}.`;
}

function describeInvoice(i: Json): string {
  const number = str(i.docNumber) ?? str(i.invoiceId) ?? '';
  const amount = num(i.totalAmount);
  const currency = str(i.currency);
  const forText = amount === null ? '' : ` for ${money(amount)}${currency ? ` ${currency}` : ''}`;
  const sentTo = str(i.sentTo);
  // The result says what exists: an unfinished email and an earlier request's invoice are told as such.
  if (i.partial === 'created_not_emailed')
    return `Invoice ${number}${forText} was created, but it could not be emailed yet; an expert will follow up.`;
  const again = i.repeated === true ? ' It had already been made for this request; no second invoice was created.' : '';
  if (sentTo) return `Invoice ${number}${forText} was sent to ${sentTo}.${again}`;
  return `Invoice ${number}${forText} was created but not emailed, as there is no email address on file.${again}`;
}

/** Which vendor result a JSON object is, by its shape. */
function describeByShape(v: Json): string | null {
  if ('fulfillmentStatus' in v || 'trackingNumbers' in v) return describeOrder(v);
  if ('totalInventory' in v || ('variants' in v && 'title' in v)) return describeProduct(v);
  if (Array.isArray(v.accounts)) return describeBalances(v);
  if ('invoiceId' in v || 'docNumber' in v) return describeInvoice(v);
  if ('workflowExecutionId' in v || ('decision' in v && 'status' in v)) return describeKyc(v);
  if ('orderId' in v && 'status' in v && Array.isArray(v.items)) return describeAmazonOrder(v);
  return null;
}

/** One sentence (or a few) for one tool_result block. */
export function describeToolResult(block: ToolResultBlockParam, toolName: string | null): string {
  const text = resultText(block).trim();
  if (block.is_error) return REPLIES.unable(text.replace(/[\s.!]+$/, '') || 'the request failed');
  const parsed = parseJson(text);
  const candidates: unknown[] = [parsed];
  if (isObject(parsed)) candidates.push(parsed.result, parsed.output, parsed.data);
  for (const candidate of candidates) {
    const sentence = isObject(candidate) ? describeByShape(candidate) : null;
    if (sentence) return sentence;
  }
  if (/approv/i.test(text)) return REPLIES.approval;
  const tool = toolName ? toolName.split('__')[0].replace(/_/g, ' ') : 'tool';
  if (text === '') return `The ${tool} call completed.`;
  const short = text.length > 200 ? `${text.slice(0, 197)}...` : text;
  return `The ${tool} call returned: ${short}`;
}
