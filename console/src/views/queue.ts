import type { ApprovalOrder, ConsoleApprovalItemFragment, ConsoleCallDetailFragment } from '../../../gql/graphql';

/** A pending approval with its call, as the inbox shows it. */
export type Item = ConsoleApprovalItemFragment & { toolCall: ConsoleCallDetailFragment };

/** The reviewer's view of the queue: its order and filters (sent to the server, and applied to live arrivals). */
export interface QueueQuery {
  orderBy: ApprovalOrder;
  /** Admins' queue holds both kinds: '' for both, else one. */
  kind: '' | 'expert' | 'client';
  toolName: string;
  amountMin: string;
  amountMax: string;
  customerId: string;
}

export const DEFAULT_QUERY: QueueQuery = { orderBy: 'time_left', kind: '', toolName: '', amountMin: '', amountMax: '', customerId: '' };
export const PAGE_SIZE = 50;

export const ORDER_LABELS: Record<ApprovalOrder, string> = {
  time_left: 'Time left (nearest expiry first)',
  risk: 'Risk (highest first)',
  oldest: 'Age (oldest first)',
  newest: 'Newest first',
};

const number = (text: string): number | null => (text.trim() === '' || !Number.isFinite(Number(text)) ? null : Number(text));

/** The query's filters as the API's variables (empty fields are no filter). */
export function queryVariables(query: QueueQuery) {
  return {
    orderBy: query.orderBy,
    toolName: query.toolName.trim() || null,
    amountMin: number(query.amountMin),
    amountMax: number(query.amountMax),
    customerId: query.customerId.trim() || null,
  };
}

/** Whether a live arrival belongs in the list the reviewer filtered (the server's rules, on the redacted input). */
export function matches(query: QueueQuery, item: Item): boolean {
  const { toolName, amountMin, amountMax, customerId } = queryVariables(query);
  const input = (item.toolCall.input ?? {}) as Record<string, unknown>;
  if (query.kind && item.kind !== query.kind) return false;
  if (toolName && item.toolCall.toolName !== toolName) return false;
  if (amountMin !== null || amountMax !== null) {
    if (typeof input.amount !== 'number') return false;
    if (amountMin !== null && input.amount < amountMin) return false;
    if (amountMax !== null && input.amount > amountMax) return false;
  }
  if (customerId && input.customerId !== customerId) return false;
  return true;
}

const RISK_RANK: Record<string, number> = { high: 3, medium: 2, low: 1 };
const time = (iso: unknown) => new Date(String(iso)).getTime();
const byId = (a: Item, b: Item) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The server's order, for merging live arrivals into loaded pages. */
export function compare(order: ApprovalOrder): (a: Item, b: Item) => number {
  switch (order) {
    case 'time_left':
      return (a, b) => time(a.expiresAt) - time(b.expiresAt) || byId(a, b);
    case 'risk':
      return (a, b) =>
        (RISK_RANK[b.toolCall.riskLevel ?? ''] ?? 0) - (RISK_RANK[a.toolCall.riskLevel ?? ''] ?? 0) ||
        time(a.expiresAt) - time(b.expiresAt) ||
        byId(a, b);
    case 'oldest':
      return (a, b) => time(a.createdAt) - time(b.createdAt) || byId(a, b);
    default:
      return (a, b) => time(b.createdAt) - time(a.createdAt) || byId(b, a);
  }
}

/** `list` with `incoming` added (new ids only), in the query's order. */
export function merged(list: Item[], incoming: Item[], order: ApprovalOrder): Item[] {
  const known = new Set(list.map((i) => i.id));
  return [...list, ...incoming.filter((i) => !known.has(i.id))].sort(compare(order));
}

/** How urgent the time left is, for the deadline colour: under an hour, under four, or more. */
export function urgency(expiresAt: unknown, now: number): 'due' | 'soon' | 'later' {
  const left = time(expiresAt) - now;
  return left < 3_600_000 ? 'due' : left < 4 * 3_600_000 ? 'soon' : 'later';
}
