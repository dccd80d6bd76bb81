import { GraphQLError, Kind, createSourceEventStream, execute, getOperationAST, print, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { RequestContext } from '../graphql/context';
import { RUN_SCOPE } from '../auth/access';
import type { ToolgateMetrics } from '../telemetry/metrics';
import { buildNow } from './cancellable';
import { LedgerFeed } from './ledger-stream';
import { formatForSocket, type ClientErrorFormatter } from '../api/client-errors';
import type { GroupExecution } from './ledger-group';
import { LedgerGroups } from './ledger-groups';
import type { SubscriptionSink } from './ledger-member';

/**
 * Subscription fan-out by group. Subscriptions of one org and role (one key, for a role that
 * reads only some runs) running the same operation with the same arguments (the resume
 * position aside) are a group: each event is executed once for the group and serialized
 * once, and every member sends the same JSON text. Each member keeps its own source stream
 * (its replay, its pace, its access checks); only the per-event work is shared.
 *
 * An event is recognised across members by its ledger `sequence` or, for token deltas,
 * by offset and length within one generation of the run's text (a retraction replaces text
 * at offsets already sent). Each execution gets a fresh context (fresh DataLoaders), so a
 * long-lived subscription never sends data cached from an earlier event.
 *
 * Ledger subscriptions over a websocket go further: graphql-ws's `onOperation` hook hands
 * the subscription to its group (`deliver`), which follows the ledger once and writes the
 * shared text to every member's socket itself (src/realtime/ledger-groups.ts). Other
 * subscriptions (token deltas) keep a source each, and graphql-ws's `onNext` hook sends
 * the shared text (`sharedJson`).
 *
 * One fan-out per composed app (src/app/compose.ts): its groups, shared results and counts.
 */
const RESUME_ARGUMENTS = new Set(['afterSequence', 'afterOffset']);
const MAX_SHARED = 5000;

type FreshContext = (ctx: RequestContext) => RequestContext;

/** Executions and serializations of shared events, results sent shared. */
export interface FanoutCounts {
  executions: number;
  serializations: number;
  sharedSends: number;
}

export class SubscriptionFanout {
  /** Group and event → its result (a promise while it executes). */
  private readonly executions = new Map<string, Promise<ExecutionResult> | ExecutionResult>();
  /** Group key → a short id (bounded; ids are never reused). */
  private readonly groupIds = new Map<string, string>();
  private nextGroup = 0;
  /** A shared result → its JSON. */
  private readonly jsonOf = new WeakMap<object, string>();
  private readonly counters: FanoutCounts = { executions: 0, serializations: 0, sharedSends: 0 };
  private readonly ledgerGroups = new LedgerGroups();

  /** For tests and metrics. */
  counts(): Readonly<FanoutCounts> {
    return { ...this.counters };
  }

  /** Ledger subscriptions of this app that receive live events (for tests). */
  liveLedgerMembers(): number {
    return this.ledgerGroups.liveMembers();
  }

  /**
   * graphql-ws's `subscribe`: a token subscription's stream of shared results, or a ledger
   * subscription waiting for its socket (`deliver`).
   */
  subscriber(freshContext: FreshContext, format: ClientErrorFormatter, metrics?: ToolgateMetrics) {
    return async (args: ExecutionArgs): Promise<AsyncIterable<ExecutionResult> | ExecutionResult> => {
      const source = await createSourceEventStream(args);
      if (!isAsyncIterable(source)) return source;
      const closed = metrics?.subscriptionOpened(rootField(args));
      // Interned: the per-event key of every member is then short to build and to hash.
      const described = groupKey(args);
      let group = this.groupIds.get(described);
      if (group === undefined) {
        group = `g${this.nextGroup++}`; // never reused: an evicted key only costs sharing, never mixes groups
        remember(this.groupIds, described, group);
      }
      const shared = this.sharedExecution(group, args, freshContext);
      const stream = mapStream(source, closed, (payload) => {
        const identity = eventIdentity(payload);
        if (identity === null) return shared(null, payload);
        const result = shared(identity, payload);
        return result instanceof Promise ? result.then((r) => this.shareResult(r)) : this.shareResult(result);
      });
      const built = builtOrNull(source);
      if (!(built instanceof LedgerFeed)) return stream;
      return new PendingLedgerSubscription(stream, {
        key: described,
        feed: built,
        closed,
        // Called only for the group's first member: the group holds it, not every member.
        execution: () => this.groupExecution(group, args, freshContext, format),
      });
    };
  }

  /**
   * graphql-ws's `onOperation`: a ledger subscription joins its group, which writes its
   * frames to `sink`; the member replaces the operation's stream (undefined: unchanged).
   */
  deliver(result: unknown, sink: SubscriptionSink): AsyncIterableIterator<never> | undefined {
    if (!(result instanceof PendingLedgerSubscription)) return undefined;
    return this.ledgerGroups.join({ ...result.join, sink, counter: this.counters });
  }

  /** For graphql-ws's `onNext`: the JSON of a result shared by a group, to send instead of serializing it again. */
  sharedJson(result: ExecutionResult): string | undefined {
    if (result.errors) return undefined;
    const json = this.jsonOf.get(result);
    if (json !== undefined) this.counters.sharedSends++;
    return json;
  }

  /** The JSON text of a shared result without errors, made once. */
  shareResult(result: ExecutionResult): ExecutionResult {
    if (!result.errors && !this.jsonOf.has(result)) {
      this.counters.serializations++;
      this.jsonOf.set(result, JSON.stringify(result));
    }
    return result;
  }

  /**
   * A group's execution of an event, once per group and event (a promise while it executes):
   * `identity` names the event; null executes it for this member alone.
   */
  private sharedExecution(group: string, args: ExecutionArgs, freshContext: FreshContext) {
    const { executions, counters } = this;
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
  private groupExecution(group: string, args: ExecutionArgs, freshContext: FreshContext, format: ClientErrorFormatter): GroupExecution {
    const shared = this.sharedExecution(group, args, freshContext);
    const textOf = (result: ExecutionResult) => this.socketText(result, format);
    return (sequence: bigint, payload: unknown): string | Promise<string> => {
      const result = shared(`s${sequence}`, payload);
      return result instanceof Promise ? result.then(textOf) : textOf(result);
    };
  }

  /** A result as graphql-ws sends it (errors as the client sees them), serialized once per result. */
  private socketText(result: ExecutionResult, format: ClientErrorFormatter): string {
    let json = this.jsonOf.get(result);
    if (json === undefined) {
      this.counters.serializations++;
      json = JSON.stringify(result.errors ? socketResult(result, format) : result);
      this.jsonOf.set(result, json);
    }
    return json;
  }
}

/**
 * A ledger subscription between graphql-ws's `subscribe` and `onOperation` hooks: what its
 * group needs to deliver it. Iterated as it is (no `onOperation` took it), it is the feed
 * followed for this one subscriber, each result shared like a token subscription's.
 */
class PendingLedgerSubscription implements AsyncIterable<ExecutionResult> {
  constructor(
    private readonly stream: AsyncIterableIterator<ExecutionResult>,
    readonly join: {
      key: string;
      feed: LedgerFeed;
      closed?: () => void;
      execution: () => (sequence: bigint, payload: unknown) => string | Promise<string>;
    },
  ) {}

  [Symbol.asyncIterator](): AsyncIterableIterator<ExecutionResult> {
    return this.stream;
  }
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
