import type { Response } from 'express';
import type { Caller } from '../auth/caller';
import { AppError } from '../errors/app-error';
import { MUTATION_COST } from '../api/limits';
import { type RateLimits, rateLimitHeaders, rateLimitKey } from '../api/rate-limits';

/** Points of one JSON-RPC message to /mcp (tools/list, initialize, a notification, a response). */
export const MCP_MESSAGE_COST = 1;
/** Points of a `tools/call`: it runs a tool through the gateway, as a GraphQL mutation does. */
export const MCP_TOOL_CALL_COST = MUTATION_COST;

/**
 * What one /mcp request costs the key's budget (the one GraphQL charges): each JSON-RPC
 * message in the body 1 point, a `tools/call` MCP_TOOL_CALL_COST; a request with no
 * message (GET of the event stream, DELETE of a session, a body that is not JSON-RPC) 1.
 */
export function mcpRequestCost(body: unknown): number {
  const messages = Array.isArray(body) ? body : body === undefined ? [] : [body];
  let cost = 0;
  for (const message of messages) {
    const method = typeof message === 'object' && message !== null ? (message as { method?: unknown }).method : undefined;
    cost += method === 'tools/call' ? MCP_TOOL_CALL_COST : MCP_MESSAGE_COST;
  }
  return Math.max(1, cost);
}

/** Charges the request to the caller's key and sets the RateLimit header fields; RATE_LIMITED when spent. */
export async function chargeMcpRequest(limits: RateLimits, caller: Caller, body: unknown, res: Response): Promise<void> {
  const verdict = await limits.charge(rateLimitKey(caller), mcpRequestCost(body));
  for (const [name, value] of Object.entries(rateLimitHeaders(verdict))) res.setHeader(name, value);
}

/**
 * A request without a valid key is charged to its address (the socket's peer), as on
 * GraphQL: RATE_LIMITED once that budget is spent, else the authentication error itself.
 */
export async function chargeUnauthenticated(limits: RateLimits, address: string | undefined, error: unknown): Promise<never> {
  if (error instanceof AppError && error.code === 'UNAUTHENTICATED') await limits.chargeAnonymous(address ?? 'unknown');
  throw error;
}
