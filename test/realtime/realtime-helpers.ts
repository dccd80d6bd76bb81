import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { Client } from 'graphql-ws';
import type { DocumentNode, FormattedExecutionResult, GraphQLFormattedError } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { TestApp } from '../support/app';
import { appendLedgerEvents } from '../../src/ledger/ledger.service';
import { socket, textOf, type CloseInfo } from '../support/graphql-http';
import { graphql } from '../gql';
import type { RetractingTokensSubscription, RunEventsSubscription, RunTokensSubscription, ToolCallChangesSubscription } from '../gql/graphql';

/**
 * The realtime layer seen from a dashboard: real graphql-ws clients on a real server,
 * every wait bounded and driven by what arrives (never a fixed sleep).
 *
 * graphql-ws does not tell a client when the server has attached a subscription's
 * listener, so the suites subscribe with `afterSequence` from a sequence read before they
 * act: the replay covers whatever happened before the listener was live.
 */
export const WAIT_MS = 10_000;

export const RUN_EVENTS = graphql(`
  subscription RunEvents($runId: ID!, $after: String) {
    runEvents(runId: $runId, afterSequence: $after) { sequence type runId resourceId metadata createdAt }
  }
`);

const TOOL_CALLS = graphql(`
  subscription ToolCallChanges($runId: ID, $after: String) {
    toolCallStatusChanged(runId: $runId, afterSequence: $after) {
      sequence status
      toolCall { id runId toolName action status input output errorCode }
    }
  }
`);

const APPROVALS = graphql(`
  subscription ApprovalChanges($kind: ApprovalKind, $after: String) {
    approvalRequests(kind: $kind, afterSequence: $after) {
      sequence change
      approvalRequest { id kind status toolCallId runId resolvedBy }
    }
  }
`);

const TOKENS = graphql(`
  subscription RunTokens($runId: ID!, $after: String) {
    runTokens(runId: $runId, afterOffset: $after) { runId offset text }
  }
`);

/** runTokens with retractions (issue 28, 6c): what a client that applies them selects. */
const RETRACTING_TOKENS = graphql(`
  subscription RetractingTokens($runId: ID!, $after: String) {
    runTokens(runId: $runId, afterOffset: $after) { runId offset text retractFrom }
  }
`);

export type RunEventItem = RunEventsSubscription['runEvents'];
export type ToolCallChange = ToolCallChangesSubscription['toolCallStatusChanged'];
export type TokenItem = RunTokensSubscription['runTokens'];
export type RetractingTokenItem = RetractingTokensSubscription['runTokens'];

export interface Socket {
  client: Client;
  /** The first close event of the socket. */
  closed: Promise<CloseInfo>;
}

/** Rejects when `promise` has not settled within the bound; the timer never outlives it. */
export function bounded<T>(promise: Promise<T>, what: string, timeoutMs = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Sockets opened by `connect`, disposed by `closeSockets` (afterEach/afterAll). */
const open: Client[] = [];

export function connect(wsUrl: string, key: string | null): Socket {
  const { client, closed } = socket(wsUrl, key);
  open.push(client);
  return { client, closed };
}

export async function closeSockets(): Promise<void> {
  await Promise.all(open.splice(0).map((client) => client.dispose()));
}

/**
 * One subscription's arrivals: items (the data of each `next`), errors that came in a
 * `next` (the subscription stays open), the terminal `error` (GraphQL errors or a close
 * event) and completion.
 */
export class Feed<T> {
  readonly items: T[] = [];
  /** performance.now() of each item's arrival. */
  readonly arrivals: number[] = [];
  readonly nextErrors: GraphQLFormattedError[] = [];
  error: unknown = null;
  completed = false;
  private readonly waiters = new Set<() => void>();
  private readonly unsubscribe: () => void;

  /** `query`: a typed document (see `subscribe`), or the text of an arbitrary one. */
  constructor(client: Client, query: string | DocumentNode, variables: Record<string, unknown>, field: string) {
    this.unsubscribe = client.subscribe<Record<string, T>>(
      { query: typeof query === 'string' ? query : textOf(query), variables },
      {
        next: (result) => {
          if (result.errors) this.nextErrors.push(...result.errors);
          const item = result.data?.[field];
          if (item) {
            this.items.push(item);
            this.arrivals.push(performance.now());
          }
          this.changed();
        },
        error: (error) => {
          this.error = error;
          this.changed();
        },
        complete: () => {
          this.completed = true;
          this.changed();
        },
      },
    );
  }

  get ended(): boolean {
    return this.completed || this.error !== null;
  }

  /** The codes of the terminal GraphQL errors (empty when it ended otherwise). */
  get errorCodes(): unknown[] {
    return Array.isArray(this.error) ? (this.error as GraphQLFormattedError[]).map((e) => e.extensions?.code) : [];
  }

  /** Resolves once `check` holds; fails fast when the subscription ended without it holding. */
  until(check: (feed: this) => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
    return bounded(
      new Promise<void>((resolve, reject) => {
        const test = () => {
          let ok = false;
          try {
            ok = check(this);
          } catch (error) {
            this.waiters.delete(test);
            reject(error);
            return;
          }
          if (ok) {
            this.waiters.delete(test);
            resolve();
          } else if (this.ended) {
            this.waiters.delete(test);
            reject(new Error(`the subscription ended (${describe(this.error)}) before ${what}; got ${this.items.length} items`));
          }
        };
        this.waiters.add(test);
        test();
      }),
      what,
      timeoutMs,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nitems: ${JSON.stringify(this.items.slice(-20))}\nerrors: ${JSON.stringify(this.nextErrors)}`);
    });
  }

  count(n: number, what = `${n} items`, timeoutMs = WAIT_MS): Promise<void> {
    return this.until((feed) => feed.items.length >= n, what, timeoutMs);
  }

  /** Resolves once the subscription ended (error or complete). */
  end(what = 'the subscription to end', timeoutMs = WAIT_MS): Promise<void> {
    return bounded(
      new Promise<void>((resolve) => {
        const test = () => {
          if (!this.ended) return;
          this.waiters.delete(test);
          resolve();
        };
        this.waiters.add(test);
        test();
      }),
      what,
      timeoutMs,
    );
  }

  stop(): void {
    this.unsubscribe();
  }

  private changed(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

function describe(error: unknown): string {
  if (error === null) return 'completed';
  if (Array.isArray(error)) return JSON.stringify(error);
  if (error && typeof error === 'object' && 'code' in error) return `close ${(error as CloseInfo).code}`;
  return String(error);
}

/** One typed subscription document's feed: its items are the data's `field`. */
export function subscribe<R, V extends Record<string, unknown>, K extends keyof R & string>(
  client: Client,
  document: TypedDocumentNode<R, V>,
  variables: V,
  field: K,
): Feed<R[K]> {
  return new Feed<R[K]>(client, document, variables, field);
}

export const runEvents = (client: Client, runId: string, after: string | null = null) => subscribe(client, RUN_EVENTS, { runId, after }, 'runEvents');

export const toolCalls = (client: Client, runId: string | null, after: string | null = null) =>
  subscribe(client, TOOL_CALLS, { runId, after }, 'toolCallStatusChanged');

export const approvals = (client: Client, kind: 'expert' | 'client' | null, after: string | null = null) =>
  subscribe(client, APPROVALS, { kind, after }, 'approvalRequests');

export const tokens = (client: Client, runId: string, after: string | null = null) => subscribe(client, TOKENS, { runId, after }, 'runTokens');

export const retractingTokens = (client: Client, runId: string, after: string | null = null) =>
  subscribe(client, RETRACTING_TOKENS, { runId, after }, 'runTokens');

/** The text a client holds after applying each item: cut at `retractFrom`, then `text` placed at `offset`, which must follow on. */
export function appliedText(items: RetractingTokenItem[]): string {
  let text = '';
  for (const item of items) {
    if (item.retractFrom !== null && item.retractFrom !== undefined) text = text.slice(0, Number(item.retractFrom));
    if (Number(item.offset) !== text.length) throw new Error(`item at ${item.offset} does not follow ${JSON.stringify(text)}`);
    text += item.text;
  }
  return text;
}

/** The newest ledger sequence of an org, read straight from the database ("0" when empty). */
export async function ledgerHead(app: TestApp, orgId: string): Promise<string> {
  const [row] = await app
    .em()
    .execute<{ sequence: string | null }[]>('select max(sequence) as sequence from ledger_events where org_id = ?', [orgId]);
  return String(row?.sequence ?? '0');
}

/** Sequences strictly increase. */
export function increasing(sequences: string[]): boolean {
  return sequences.every((s, i) => i === 0 || BigInt(s) > BigInt(sequences[i - 1]));
}

/** Where deltas do not follow each other: `{ expected, got }` offsets (empty when contiguous). */
export function gaps(items: TokenItem[], start = 0): { expected: number; got: number }[] {
  const found: { expected: number; got: number }[] = [];
  let end = start;
  for (const item of items) {
    if (Number(item.offset) !== end) found.push({ expected: end, got: Number(item.offset) });
    end = Number(item.offset) + item.text.length;
  }
  return found;
}

/** Whether a delta ending exactly at `end` (the end of the text) has arrived. */
export const reaches = (items: TokenItem[], end: number): boolean => items.some((i) => Number(i.offset) + i.text.length === end);

export const joined = (items: TokenItem[]): string => items.map((i) => i.text).join('');

/** What a graphql-transport-ws server sends, for a subscription whose data is `R`. */
type ServerMessage<R> =
  | { id?: undefined; type: 'connection_ack' | 'ping' | 'pong'; payload?: unknown }
  | { id: string; type: 'next'; payload: FormattedExecutionResult<R> }
  | { id: string; type: 'error'; payload: GraphQLFormattedError[] }
  | { id: string; type: 'complete'; payload?: undefined };

/**
 * A raw graphql-transport-ws client on `ws`, for what graphql-ws' own client cannot do:
 * stop reading its socket (pause) while the server keeps sending.
 */
export class RawSubscriber<R> {
  readonly messages: ServerMessage<R>[] = [];
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)));
      for (const waiter of [...this.waiters]) waiter();
    });
    socket.on('close', () => {
      for (const waiter of [...this.waiters]) waiter();
    });
  }

  /** Connects, authenticates (connection_init → connection_ack) and subscribes with id "1". */
  static async open<R, V>(wsUrl: string, key: string, document: TypedDocumentNode<R, V>, variables: V): Promise<RawSubscriber<R>> {
    const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
    await bounded(
      new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      }),
      'the raw socket to open',
    );
    const raw = new RawSubscriber<R>(socket);
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } }));
    await raw.until((m) => m.some((x) => x.type === 'connection_ack'), 'connection_ack');
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: textOf(document), variables } }));
    return raw;
  }

  get nexts(): FormattedExecutionResult<R>[] {
    return this.messages.flatMap((m) => (m.type === 'next' ? [m.payload] : []));
  }

  /** The subscription's error or complete message, once it came. */
  get ending(): Extract<ServerMessage<R>, { type: 'error' | 'complete' }> | undefined {
    return this.messages.find(
      (m): m is Extract<ServerMessage<R>, { type: 'error' | 'complete' }> => m.id === '1' && (m.type === 'error' || m.type === 'complete'),
    );
  }

  until(check: (messages: ServerMessage<R>[]) => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
    return bounded(
      new Promise<void>((resolve, reject) => {
        const test = () => {
          if (check(this.messages)) {
            this.waiters.delete(test);
            resolve();
          } else if (this.socket.readyState === WebSocket.CLOSED) {
            this.waiters.delete(test);
            reject(new Error(`the raw socket closed before ${what}`));
          }
        };
        this.waiters.add(test);
        test();
      }),
      what,
      timeoutMs,
    );
  }

  /** Stops reading the socket: what the server sends piles up in the TCP buffers, then on the server. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  close(): void {
    this.socket.terminate();
  }
}

/** `count` run.message_added events of a run, committed in one transaction; their sequences. */
export async function commitRunEvents(
  app: TestApp,
  orgId: string,
  runId: string,
  count: number,
  metadata: (i: number) => Record<string, unknown>,
): Promise<string[]> {
  const events = await app.em().transactional((tx) =>
    appendLedgerEvents(
      tx,
      Array.from({ length: count }, (_, i) => ({ orgId, type: 'run.message_added' as const, runId, resourceId: runId, metadata: metadata(i) })),
    ),
  );
  return events.map((e) => String(e.sequence));
}
