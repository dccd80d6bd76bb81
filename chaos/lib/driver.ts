import { ConnectionLost, graphql, GraphqlError } from './clients';
import type { Cluster, Node } from './cluster';
import { sleep } from './processes';

/**
 * Drives agent runs through the GraphQL API as a customer (client key), an expert
 * (expert key) and an auditor (admin key) would, against whichever node is alive.
 */
export const TERMINAL_RUN = new Set(['completed', 'failed', 'cancelled']);

/** QuickBooks demo customers: 1 and 2 have an email address on file (the invoice is emailed), 3 has none. */
export const CUSTOMERS = ['1', '2', '3'] as const;
export const CUSTOMERS_WITH_EMAIL = new Set(['1', '2']);

export interface TrackedRun {
  id: string;
  kind: 'invoice' | 'lookup';
  /** The node whose API started it. */
  startedVia: string;
  batch: number;
  customerId?: string;
  amount?: number;
  /** What the customer wrote (and writes again when a scenario has the customer repeat it). */
  message: string;
  /** The run's reply after each turn, where a scenario recorded it (the customer's repeat makes a second turn). */
  replies: string[];
}

export interface ToolCallView {
  id: string;
  runId: string;
  toolName: string;
  action: string;
  status: string;
  errorCode: string | null;
  reviewRequired: boolean;
}

/** What a call's stored (redacted) result says of its invoice, when it is invoice.send's. */
export interface InvoiceOutput {
  invoiceId?: string;
  docNumber?: string | null;
  partial?: string;
  repeated?: boolean;
}

export interface RunView {
  id: string;
  status: string;
  errorCode: string | null;
  reply: string | null;
  /** In creation order, each with its ledger events (what its outcome went through). */
  toolCalls: (Omit<ToolCallView, 'runId'> & { output: InvoiceOutput | null; ledgerEvents: { type: string; metadata: Record<string, unknown> }[] })[];
}

export interface ApprovalView {
  id: string;
  runId: string;
  toolCallId: string;
}

export function invoiceMessage(index: number): { message: string; customerId: string; amount: number } {
  const customerId = CUSTOMERS[index % CUSTOMERS.length];
  const amount = 100 + index + 0.5;
  return { message: `Please send an invoice for $${amount.toFixed(2)} to customer ${customerId}`, customerId, amount };
}

export const LOOKUP_MESSAGE = "What's the status of my order #12345?";

export class Driver {
  readonly runs: TrackedRun[] = [];
  /** Requests whose answer was lost with the node (startAgentRun, resolveApproval). */
  readonly lostRequests: string[] = [];
  private invoiceCount = 0;

  constructor(
    readonly cluster: Cluster,
    private readonly log: (line: string) => void,
  ) {}

  /** A node that is alive, preferring `preferred`. */
  liveNode(preferred?: string): Node {
    const nodes = [...this.cluster.nodes.values()];
    const node = nodes.find((n) => n.name === preferred && n.child.alive()) ?? nodes.find((n) => n.child.alive());
    // Treated like a lost connection: the drive loop waits (a watched node's death ends it).
    if (!node) throw new ConnectionLost('no live node');
    return node;
  }

  private key(role: 'client' | 'expert' | 'admin'): string {
    return this.cluster.seed.keys[role];
  }

  /** startAgentRun as the client; null when the node died before answering (the run may exist; verification lists every run). */
  async startInvoiceRun(node: Node, batch: number): Promise<TrackedRun | null> {
    const invoice = invoiceMessage(this.invoiceCount++);
    return this.start(node, batch, invoice.message, {
      kind: 'invoice',
      customerId: invoice.customerId,
      amount: invoice.amount,
      message: invoice.message,
      replies: [],
    });
  }

  async startLookupRun(node: Node, batch: number): Promise<TrackedRun | null> {
    return this.start(node, batch, LOOKUP_MESSAGE, { kind: 'lookup', message: LOOKUP_MESSAGE, replies: [] });
  }

  private async start(node: Node, batch: number, message: string, what: Omit<TrackedRun, 'id' | 'startedVia' | 'batch'>): Promise<TrackedRun | null> {
    try {
      const data = await graphql<{ startAgentRun: { id: string } }>(
        node.url,
        this.key('client'),
        'mutation($s: ID!, $m: String!) { startAgentRun(input: { specialistId: $s, message: $m }) { id status } }',
        { s: this.cluster.seed.specialistId, m: message },
      );
      const run: TrackedRun = { id: data.startAgentRun.id, startedVia: node.name, batch, ...what };
      this.runs.push(run);
      return run;
    } catch (error) {
      if (!(error instanceof ConnectionLost)) throw error;
      this.lostRequests.push(`startAgentRun via ${node.name}: ${error.message}`);
      return null;
    }
  }

  /** postMessage as the client: the customer writes `run.message` again in the finished run. */
  async repeatMessage(node: Node, run: TrackedRun): Promise<void> {
    await graphql(node.url, this.key('client'), 'mutation($id: ID!, $text: String!) { postMessage(runId: $id, text: $text) { id status } }', {
      id: run.id,
      text: run.message,
    });
  }

  /** Stores each run's current reply as the reply of its latest turn. */
  async recordReplies(node: Node, runs: TrackedRun[]): Promise<void> {
    for (const run of runs) run.replies.push((await this.run(node, run.id)).reply ?? '');
  }

  async pendingApprovals(node: Node): Promise<ApprovalView[]> {
    const data = await graphql<{ approvalRequests: { edges: { node: ApprovalView }[] } }>(
      node.url,
      this.key('expert'),
      '{ approvalRequests(first: 100, filter: { status: pending }) { edges { node { id runId toolCallId } } } }',
    );
    return data.approvalRequests.edges.map((e) => e.node);
  }

  /** resolveApproval APPROVE as the expert: 'approved', 'lost' (the node died before answering) or the error code. */
  async approve(node: Node, approvalId: string): Promise<string> {
    try {
      await graphql(
        node.url,
        this.key('expert'),
        'mutation($id: ID!) { resolveApproval(id: $id, decision: APPROVE, reason: "chaos harness") { status } }',
        {
          id: approvalId,
        },
      );
      return 'approved';
    } catch (error) {
      if (error instanceof ConnectionLost) {
        this.lostRequests.push(`resolveApproval ${approvalId} via ${node.name}: ${error.message}`);
        return 'lost';
      }
      if (error instanceof GraphqlError) return error.code ?? 'ERROR';
      throw error;
    }
  }

  /** id → status of every run of the org (one page of up to 100, newest first; paged beyond). */
  async runStatuses(node: Node): Promise<Map<string, string>> {
    const statuses = new Map<string, string>();
    let after: string | null = null;
    for (;;) {
      const data: { runs: { edges: { node: { id: string; status: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } =
        await graphql(
          node.url,
          this.key('client'),
          'query($after: String) { runs(first: 100, after: $after) { edges { node { id status } } pageInfo { hasNextPage endCursor } } }',
          { after },
        );
      for (const edge of data.runs.edges) statuses.set(edge.node.id, edge.node.status);
      if (!data.runs.pageInfo.hasNextPage) return statuses;
      after = data.runs.pageInfo.endCursor;
    }
  }

  /** Every tool call of the org (leaf fields only). */
  async toolCalls(node: Node): Promise<ToolCallView[]> {
    const calls: ToolCallView[] = [];
    let after: string | null = null;
    for (;;) {
      const data: { toolCalls: { edges: { node: ToolCallView }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } = await graphql(
        node.url,
        this.key('client'),
        'query($after: String) { toolCalls(first: 100, after: $after) { edges { node { id runId toolName action status errorCode reviewRequired } } pageInfo { hasNextPage endCursor } } }',
        { after },
      );
      calls.push(...data.toolCalls.edges.map((e) => e.node));
      if (!data.toolCalls.pageInfo.hasNextPage) return calls;
      after = data.toolCalls.pageInfo.endCursor;
    }
  }

  async run(node: Node, id: string): Promise<RunView> {
    const data = await graphql<{ run: RunView }>(
      node.url,
      // An admin key: the calls' ledger events (what each outcome went through) are for auditors.
      this.key('admin'),
      'query($id: ID!) { run(id: $id) { id status errorCode reply toolCalls { id toolName action status errorCode reviewRequired output ledgerEvents { type metadata } } } }',
      { id },
    );
    return data.run;
  }

  /** Ledger events of one type (admin: metadata included), in sequence order. */
  async ledgerEvents(
    node: Node,
    type: string,
  ): Promise<{ type: string; resourceId: string | null; runId: string | null; sequence: string; metadata: Record<string, unknown> }[]> {
    const events: { type: string; resourceId: string | null; runId: string | null; sequence: string; metadata: Record<string, unknown> }[] = [];
    let after: string | null = null;
    for (;;) {
      const data: { ledgerEvents: { edges: { node: (typeof events)[number] }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } =
        await graphql(
          node.url,
          this.key('admin'),
          'query($after: String, $type: String) { ledgerEvents(first: 100, after: $after, filter: { type: $type }) { edges { node { type resourceId runId sequence metadata } } pageInfo { hasNextPage endCursor } } }',
          { after, type },
        );
      events.push(...data.ledgerEvents.edges.map((e) => e.node));
      if (!data.ledgerEvents.pageInfo.hasNextPage) return events;
      after = data.ledgerEvents.pageInfo.endCursor;
    }
  }

  /** Waits until each of `runIds` has a pending approval; false when a node died or the deadline passed. */
  async waitForApprovals(node: Node, runIds: string[], timeoutMs: number): Promise<ApprovalView[] | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!node.child.alive()) return null;
      try {
        const pending = await this.pendingApprovals(node);
        const mine = pending.filter((a) => runIds.includes(a.runId));
        if (new Set(mine.map((a) => a.runId)).size >= runIds.length) return mine;
      } catch (error) {
        if (!(error instanceof ConnectionLost)) throw error;
      }
      if (Date.now() > deadline) return null;
      await sleep(150);
    }
  }

  /**
   * Waits until each of `runIds` is parked for its approval: `waiting_approval`, with the
   * pending tool result stored as its last message (the step that asked has finished). False
   * when `node` died or the deadline passed.
   */
  async waitParked(node: Node, runIds: string[], timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const parked = new Set<string>();
    for (;;) {
      if (!node.child.alive()) return false;
      try {
        for (const id of runIds) {
          if (parked.has(id)) continue;
          const data = await graphql<{ run: { status: string; messages: { role: string; position: number }[] } }>(
            node.url,
            this.key('client'),
            'query($id: ID!) { run(id: $id) { status messages { role position } } }',
            { id },
          );
          const last = data.run.messages.at(-1);
          if (data.run.status === 'waiting_approval' && last?.role === 'user' && last.position >= 2) parked.add(id);
        }
        if (parked.size === runIds.length) return true;
      } catch (error) {
        if (!(error instanceof ConnectionLost)) throw error;
      }
      if (Date.now() > deadline) return false;
      await sleep(150);
    }
  }

  /**
   * The drive loop: approves every pending approval (one at a time, on a live node) and
   * polls until `done()`; stops early when `watch` (a node expected to die) has died.
   */
  async drive(options: {
    deadline: number;
    approve: boolean;
    done: () => Promise<boolean>;
    watch?: Node;
    via?: string;
  }): Promise<'done' | 'died' | 'timeout'> {
    for (;;) {
      if (options.watch && !options.watch.child.alive()) return 'died';
      try {
        const node = this.liveNode(options.via);
        if (options.approve) {
          for (const approval of await this.pendingApprovals(node)) {
            const result = await this.approve(node, approval.id);
            if (result === 'lost') break;
            if (result !== 'approved' && result !== 'APPROVAL_ALREADY_RESOLVED') this.log(`  approval ${approval.id}: ${result}`);
          }
        }
        if (options.watch && !options.watch.child.alive()) return 'died';
        if (await options.done()) return 'done';
      } catch (error) {
        // SERVICE_UNAVAILABLE: the node's database is gone for a while (postgres_crash), or it is shutting down.
        const transient =
          error instanceof ConnectionLost ||
          (error instanceof GraphqlError && (error.code === 'RATE_LIMITED' || error.code === 'SERVICE_UNAVAILABLE'));
        if (!transient) throw error;
      }
      if (Date.now() > options.deadline) return 'timeout';
      await sleep(250);
    }
  }

  /** True when every run the org has is terminal. */
  async allTerminal(node: Node): Promise<boolean> {
    const statuses = await this.runStatuses(node);
    return [...statuses.values()].every((s) => TERMINAL_RUN.has(s));
  }
}
