import { GraphQLError, Kind, createSourceEventStream, execute, getOperationAST, print, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { RequestContext } from '../graphql/context';
import { RUN_SCOPE } from '../auth/access';
import type { ToolgateMetrics } from '../telemetry/metrics';
import { buildNow } from '../events/cancellable';
import { ledgerFeedOf } from '../events/ledger-stream';
import { formatForSocket, type ClientErrorFormatter } from './client-errors';
import { joinLedgerGroup, type SubscriptionSink } from './ledger-groups';

/**
 * Subscription fan-out by group. Subscriptions of one org and role (one key, for a role that
 * reads only some runs) running the same
 * operation with the same arguments (the resume position aside) are a group: each event
 * is executed once for the group and serialized once, and every member sends the same
 * JSON text. Each member keeps its own source stream (its replay, its pace, its access
 * checks); only the per-event work is shared.
 *
 * An event is recognised across members by its ledger `sequence` or, for token deltas,
 * by offset and length within one generation of the run's text (a retraction replaces text
 * at offsets already sent). Each execution gets a fresh context (fresh DataLoaders), so a
 * long-lived subscription never sends data cached from an earlier event.
 *
 * Ledger subscriptions over a websocket go further: the group follows the ledger once and
 * writes the shared text to every member's socket itself (src/api/ledger-groups.ts). Other
 * subscriptions (token deltas) keep a source each and send the shared text through
 * graphql-ws (`sharedPayload`).
 */
const RESUME_ARGUMENTS = new Set(['afterSequence', 'afterOffset']);
const SHARED_MARK = '__toolgateShared';
const MAX_SHARED = 5000;

/** Group and event → its result (a promise while it executes). */
const executions = new Map<string, Promise<ExecutionResult> | ExecutionResult>();
/** Group key → a short id (bounded; ids are never reused). */
const groupIds = new Map<string, string>();
let nextGroup = 0;
/** Token → a shared result's JSON, for the marker graphql-ws sends (`expandShared`). */
const serialized = new Map<string, string>();
/** A shared result without errors → its JSON. */
const jsonOf = new WeakMap<object, string>();
/** A shared result → its token: one per result, whichever member sends it, and however many. */
const tokenOf = new WeakMap<object, string>();
let nextToken = 0;
/** Where each websocket subscription's frames go, by its context (set by the websocket server). */
const sinks = new WeakMap<object, SubscriptionSink>();

export function setSubscriptionSink(contextValue: object, sink: SubscriptionSink): void {
  sinks.set(contextValue, sink);
}
/** Per-process counts, for tests and metrics: executions and serializations of shared events, results sent shared. */
const counters = { executions: 0, serializations: 0, sharedSends: 0 };

export function fanoutCounters(): Readonly<typeof counters> {
  return { ...counters };
}

export function createGroupedSubscribe(
  freshContext: (ctx: RequestContext) => RequestContext,
  format: ClientErrorFormatter,
  metrics?: ToolgateMetrics,
) {
  return async (args: ExecutionArgs): Promise<AsyncIterable<ExecutionResult> | ExecutionResult> => {
    const source = await createSourceEventStream(args);
    if (!isAsyncIterable(source)) return source;
    const closed = metrics?.subscriptionOpened(rootField(args));
    // Interned: the per-event key of every member is then short to build and to hash.
    const described = groupKey(args);
    let group = groupIds.get(described);
    if (group === undefined) {
      group = `g${nextGroup++}`; // never reused: an evicted key only costs sharing, never mixes groups
      remember(groupIds, described, group);
    }
    const sink = sinks.get(args.contextValue as object);
    const feed = sink ? ledgerFeedOf(builtOrNull(source)) : undefined;
    if (sink && feed) {
      return joinLedgerGroup({
        key: described,
        feed,
        sink,
        counter: counters,
        closed,
        // Called only for the group's first member: the group holds it, not every member.
        execution: () => groupExecution(group, args, freshContext, format),
      });
    }
    const shared = sharedExecution(group, args, freshContext);
    return mapStream(source, closed, (payload) => {
      const identity = eventIdentity(payload);
      if (identity === null) return shared(null, payload);
      const result = shared(identity, payload);
      return result instanceof Promise ? result.then(shareResult) : shareResult(result);
    });
  };
}

/**
 * A group's execution of an event, once per group and event (a promise while it executes):
 * `identity` names the event; null executes it for this member alone.
 */
function sharedExecution(group: string, args: ExecutionArgs, freshContext: (ctx: RequestContext) => RequestContext) {
  const run = (payload: unknown) => execute({ ...args, rootValue: payload, contextValue: freshContext(args.contextValue as RequestContext) });
  return (identity: string | null, payload: unknown): Promise<ExecutionResult> | ExecutionResult => {
    if (identity === null) return run(payload);
    const key = `${group}#${identity}`;
    const known = executions.get(key);
    // Settled for the group already (every member but the first): no await at all.
    if (known) return known;
    counters.executions++;
    const pending = Promise.resolve(run(payload)).then((result) => {
      remember(executions, key, result);
      return result;
    });
    remember(executions, key, pending);
    pending.catch(() => executions.delete(key));
    return pending;
  };
}

/** A ledger group's JSON text of an event's result (see ledger-groups.ts). */
function groupExecution(group: string, args: ExecutionArgs, freshContext: (ctx: RequestContext) => RequestContext, format: ClientErrorFormatter) {
  const shared = sharedExecution(group, args, freshContext);
  const textOf = (result: ExecutionResult) => socketText(result, format);
  return (sequence: bigint, payload: unknown): string | Promise<string> => {
    const result = shared(`s${sequence}`, payload);
    return result instanceof Promise ? result.then(textOf) : textOf(result);
  };
}

/** The JSON text of a shared result without errors, made once. */
export function shareResult(result: ExecutionResult): ExecutionResult {
  if (!result.errors && !jsonOf.has(result)) {
    counters.serializations++;
    jsonOf.set(result, JSON.stringify(result));
  }
  return result;
}

/** A result as graphql-ws sends it (errors as the client sees them), serialized once per result. */
function socketText(result: ExecutionResult, format: ClientErrorFormatter): string {
  let json = jsonOf.get(result);
  if (json === undefined) {
    counters.serializations++;
    json = JSON.stringify(result.errors ? socketResult(result, format) : result);
    jsonOf.set(result, json);
  }
  return json;
}

/** A result with its errors formatted for the websocket transport. */
export function socketResult(result: ExecutionResult, format: ClientErrorFormatter): ExecutionResult {
  if (!result.errors) return result;
  return {
    ...result,
    errors: result.errors.map((e) => (e instanceof GraphQLError ? formatForSocket(format, e) : format(e, e))) as unknown as GraphQLError[],
  };
}

function builtOrNull(source: AsyncIterable<unknown>): unknown {
  try {
    return buildNow(source);
  } catch {
    return null; // iterated instead, its next() fails with the same error, as without the fan-out
  }
}

/**
 * For graphql-ws's onNext: a result shared by a group is sent as a marker that the socket
 * replaces with the group's JSON (`expandShared`), instead of being serialized again.
 */
export function sharedPayload(result: ExecutionResult): Record<string, string> | undefined {
  if (result.errors) return undefined;
  const json = jsonOf.get(result);
  if (json === undefined) return undefined;
  let token = tokenOf.get(result);
  if (token === undefined || !serialized.has(token)) {
    token = String(nextToken++);
    tokenOf.set(result, token);
    remember(serialized, token, json);
  }
  counters.sharedSends++;
  return { [SHARED_MARK]: token };
}

const MARKER = `"payload":{"${SHARED_MARK}":"`;

/** Replaces a shared-payload marker in an outgoing graphql-ws message with the JSON it stands for. */
export function expandShared(message: string): string {
  const at = message.indexOf(MARKER);
  if (at < 0) return message;
  const tokenStart = at + MARKER.length;
  const tokenEnd = message.indexOf('"', tokenStart);
  // Kept for every member that sends it; only newer results evict it (MAX_SHARED of them).
  const json = serialized.get(message.slice(tokenStart, tokenEnd));
  if (json === undefined) throw new Error('a shared subscription payload was evicted before it was sent');
  // The marker object is `{"__toolgateShared":"<token>"}`: skip its closing `"}`.
  return `${message.slice(0, at)}"payload":${json}${message.slice(tokenEnd + 2)}`;
}

function groupKey(args: ExecutionArgs): string {
  const ctx = args.contextValue as RequestContext;
  const caller = ctx.caller;
  const operation = getOperationAST(args.document, args.operationName);
  const resumeVariables = new Set<string>();
  for (const selection of operation?.selectionSet.selections ?? []) {
    if (selection.kind !== Kind.FIELD) continue;
    for (const argument of selection.arguments ?? []) {
      if (RESUME_ARGUMENTS.has(argument.name.value) && argument.value.kind === Kind.VARIABLE) resumeVariables.add(argument.value.name.value);
    }
  }
  const variables = Object.entries(args.variableValues ?? {})
    .filter(([name]) => !resumeVariables.has(name))
    .sort(([a], [b]) => a.localeCompare(b));
  // A role that reads only some runs (RUN_SCOPE) filters per key: its group is the key's own.
  const perKey = caller && RUN_SCOPE[caller.role] !== 'org' ? caller.keyId : null;
  return JSON.stringify([
    caller?.orgId ?? null,
    caller?.role ?? null,
    perKey,
    args.operationName ?? null,
    variables,
    print(operation ?? args.document),
  ]);
}

/** The subscription's root field (validation allows exactly one), a low-cardinality label. */
function rootField(args: ExecutionArgs): string {
  const first = getOperationAST(args.document, args.operationName)?.selectionSet.selections[0];
  return first?.kind === Kind.FIELD ? first.name.value : 'unknown';
}

function eventIdentity(payload: unknown): string | null {
  if (!payload || typeof payload !== 'object') return null;
  const event = payload as { sequence?: unknown; runId?: unknown; offset?: unknown; text?: unknown; retractFrom?: unknown; generation?: unknown };
  if (typeof event.sequence === 'string' || typeof event.sequence === 'bigint') return `s${event.sequence}`;
  if (typeof event.offset === 'string' && typeof event.text === 'string')
    return `t${String(event.runId)}:${String(event.generation)}:${event.offset}:${event.text.length}:${String(event.retractFrom)}`;
  return null;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  if (map.size > MAX_SHARED) map.delete(map.keys().next().value as string);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function';
}

/**
 * Maps a source stream, passing return() through so the source releases its listener at
 * once; `closed` is told when the stream ends either way (it may be told twice).
 */
function mapStream<T>(
  source: AsyncIterable<unknown>,
  closed: (() => void) | undefined,
  map: (value: unknown) => T | Promise<T>,
): AsyncIterableIterator<T> {
  const iterator = source[Symbol.asyncIterator]();
  return {
    next: async () => {
      let item: IteratorResult<unknown>;
      try {
        item = await iterator.next();
      } catch (error) {
        closed?.();
        throw error;
      }
      if (item.done) {
        closed?.();
        return { value: undefined as T, done: true };
      }
      const mapped = map(item.value);
      return { value: mapped instanceof Promise ? await mapped : mapped, done: false };
    },
    return: async () => {
      closed?.();
      await iterator.return?.();
      return { value: undefined as T, done: true };
    },
    throw: async (error?: unknown) => {
      closed?.();
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
