import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { errorCode, type TestApp } from '../support/app';
import { graphql } from '../gql';
import type { RunDetailQuery, StartAgentRunInput, StartAgentRunMutation } from '../gql/graphql';
import { BIND_TOOL, CREATE_SPECIALIST, RESOLVE_APPROVAL, START_AGENT_RUN, jsonAs } from '../support/documents';
import type { SeedResult } from '../../src/seed/demo-seed';
import type { TokenEvent } from '../../src/runs/run-events';

/**
 * Runs driven by Toolgate's own agent runtime, seen from outside: GraphQL mutations to
 * start, continue, cancel and approve; a bounded poll of the run's status (never a fixed
 * sleep); the vendor sandboxes' request log; and the job queue's rows for a run.
 */
export const RUN_STATUS = graphql(`
  query RunStatusPoll($id: ID!) {
    run(id: $id) { id status }
  }
`);

const RUN_DETAIL = graphql(`
  query RunDetail($id: ID!) {
    run(id: $id) {
      id status driver reply stopReason replyTruncated pendingApprovalCount inputTokens outputTokens llmCostUsd errorCode errorMessage
      allowedTools
      messages {
        position role content text
        blocks {
          __typename
          ... on TextBlock { text }
          ... on ToolUseBlock { toolUseId name tool input toolCallId status }
          ... on ToolResultBlock { toolUseId isError pending content toolCallId status }
        }
      }
      toolCalls {
        id toolName action status errorCode errorText vendorStatusCode input output riskLevel
        policyDecision { id outcome risk }
        approvalRequest { id status kind }
      }
      ledgerEvents { type resourceId metadata }
    }
  }
`);

const POST_MESSAGE = graphql(`
  mutation PostMessage($runId: ID!, $text: String!) {
    postMessage(runId: $runId, text: $text) { id status }
  }
`);

const CANCEL = graphql(`
  mutation CancelRun($runId: ID!) {
    cancelRun(runId: $runId) { id status pendingApprovalCount }
  }
`);

/** A block of a stored message, in the Messages API's shape (run_messages.content). */
export interface Block {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
  tool_use_id?: string;
  content?: string;
  is_error?: boolean;
}

type RunDetail = RunDetailQuery['run'];
type Message = RunDetail['messages'][number];

/** RunDetail, with each message's content (JSON in the schema) as its blocks. */
export type RunView = Omit<RunDetail, 'messages'> & { messages: (Omit<Message, 'content'> & { content: Block[] })[] };

export const FINISHED = ['completed', 'failed', 'cancelled'];

export class RunClient {
  constructor(
    readonly app: TestApp,
    readonly seed: SeedResult,
  ) {}

  /** The data of a request that must succeed. */
  async ok<R, V>(document: TypedDocumentNode<R, V>, variables: V, key: string): Promise<R> {
    const res = await this.app.gql(document, { key, variables });
    if (res.body.errors || !res.body.data) throw new Error(`GraphQL failed: ${JSON.stringify(res.body.errors)}`);
    return res.body.data;
  }

  /** startAgentRun (INTERNAL unless told) with the demo client key; answers the mutation's own view. */
  async start(message: string, options: { key?: string; specialistId?: string } = {}): Promise<StartAgentRunMutation['startAgentRun']> {
    const data = await this.ok(
      START_AGENT_RUN,
      { input: { specialistId: options.specialistId ?? this.seed.specialistId, message } },
      options.key ?? this.seed.keys.client,
    );
    return data.startAgentRun;
  }

  startRaw(input: StartAgentRunInput, key: string) {
    return this.app.gql(START_AGENT_RUN, { key, variables: { input } });
  }

  postMessage(runId: string, text: string, key = this.seed.keys.client) {
    return this.app.gql(POST_MESSAGE, { key, variables: { runId, text } });
  }

  cancel(runId: string, key = this.seed.keys.client) {
    return this.app.gql(CANCEL, { key, variables: { runId } });
  }

  resolve(approvalId: string, decision: 'APPROVE' | 'REJECT', key = this.seed.keys.expert) {
    return this.app.gql(RESOLVE_APPROVAL, { key, variables: { id: approvalId, decision } });
  }

  /** Everything about a run (admin key: ledger events and policy decisions are audit data). */
  async get(runId: string): Promise<RunView> {
    const { run } = await this.ok(RUN_DETAIL, { id: runId }, this.seed.keys.admin);
    return { ...run, messages: run.messages.map((m) => ({ ...m, content: jsonAs<Block[]>(m.content) })) };
  }

  /** A new specialist of the demo org bound to one tool only (admin key); its id. */
  async specialistWith(name: string, toolName: string, action: string): Promise<string> {
    const { createSpecialist } = await this.ok(CREATE_SPECIALIST, { input: { name } }, this.seed.keys.admin);
    await this.ok(BIND_TOOL, { input: { specialistId: createSpecialist.id, toolName, action } }, this.seed.keys.admin);
    return createSpecialist.id;
  }

  /** Polls the status every 50 ms until it is one of `statuses` (default: finished); then the full view. */
  async waitFor(runId: string, statuses: string[] = FINISHED, timeoutMs = 15_000): Promise<RunView> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      const data = await this.ok(RUN_STATUS, { id: runId }, this.seed.keys.admin);
      last = data.run.status;
      if (statuses.includes(last)) {
        const view = await this.get(runId);
        // The gateway pauses the run before the runtime writes the pending tool results: wait for them.
        if (last !== 'waiting_approval' || view.messages.at(-1)?.role === 'user') return view;
      }
      if (Date.now() > deadline) throw new Error(`run ${runId} is still ${last} after ${timeoutMs} ms (waiting for ${statuses.join('/')})`);
      await pause(50);
    }
  }

  /** A new run, waited for until it finished. */
  async complete(message: string, options: { key?: string; specialistId?: string } = {}): Promise<RunView> {
    const { id } = await this.start(message, options);
    return this.waitFor(id);
  }

  /** Requests the vendor sandboxes received, optionally of one vendor and one kind. */
  vendorRequests(vendor: string, match: (r: { method: string; path: string }) => boolean = () => true): number {
    return this.app.sandbox!.requests.filter((r) => r.vendor === vendor && match(r)).length;
  }

  /** Job-queue rows of a run (graphile-worker deletes a job once it succeeded). */
  async jobsOf(runId: string): Promise<number> {
    const [row] = await this.app
      .em()
      .execute<{ n: string }[]>('select count(*) as n from graphile_worker.jobs where queue_name = ?', [`run:${runId}`]);
    return Number(row.n);
  }

  /** Polls until the run has no job left (each taken and finished), at most `timeoutMs`. */
  async jobsDone(runId: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.jobsOf(runId)) > 0) {
      if (Date.now() > deadline) throw new Error(`run ${runId} still has jobs after ${timeoutMs} ms`);
      await pause(50);
    }
  }

  async count(table: string, where: string, params: unknown[]): Promise<number> {
    const [row] = await this.app.em().execute<{ n: string }[]>(`select count(*) as n from ${table} where ${where}`, params);
    return Number(row.n);
  }
}

/** Every token event of the app, from now on, for later filtering by run. */
export function recordTokens(app: TestApp): { events: TokenEvent[]; stop(): void } {
  const events: TokenEvent[] = [];
  const listener = (event: TokenEvent) => void events.push(event);
  app.services.runEvents.on('token', listener);
  return { events, stop: () => void app.services.runEvents.off('token', listener) };
}

/** QuickBooks invoice creations through the Nango proxy (not the follow-up /send). */
export const isInvoiceCreate = (r: { method: string; path: string }): boolean => r.method === 'POST' && /\/invoice$/.test(r.path);

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 20 ms until it holds, at most `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await pause(20);
  }
}

/**
 * The run's ledger event types without `run.message_added` (one per stored message, for
 * subscribers): the lifecycle and tool-call events, in sequence order.
 */
export const types = (run: RunView): string[] => run.ledgerEvents.map((e) => e.type).filter((t) => t !== 'run.message_added');

/** The `run.message_added` events' metadata, in sequence order. */
export const messageEvents = (run: RunView): Record<string, unknown>[] =>
  run.ledgerEvents.filter((e) => e.type === 'run.message_added').map((e) => e.metadata);

export const assistantTexts = (run: RunView): string[] => run.messages.filter((m) => m.role === 'assistant').map((m) => m.text);

export { errorCode };
