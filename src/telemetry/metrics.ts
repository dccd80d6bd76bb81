import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isUpstreamToolName } from '../catalog/tool-key';

/**
 * Toolgate's Prometheus metrics: one registry per composed app (tests run several apps in
 * one process, so nothing goes to prom-client's global registry), the families defined
 * here once, and one small method per event that code in hot paths calls. Those methods
 * touch counters and histograms only; what needs the database (pending approvals, the job
 * queue) is read at scrape time (metrics-database.ts).
 *
 * Labels stay low-cardinality: tool keys and vendors (imported upstream tools all as `upstream`), codes, statuses — never an org, run or
 * call id. Names follow Prometheus conventions (`_total`, `_seconds`). README, "Metrics".
 */

/** Breaker states as the gauge reports them: the higher, the worse. */
export const BREAKER_STATE = { closed: 0, half_open: 1, open: 2 } as const;
export type BreakerState = keyof typeof BREAKER_STATE;

/** The tool label of a call whose tool is not in the catalog (the model may name anything). */
export const UNKNOWN_TOOL = 'unknown';

/**
 * The tool and vendor label of every imported upstream MCP tool (`mcp.<server>.<tool>`,
 * vendor `mcp.<server>`): their names are chosen by tenants and upstream servers, so as
 * label values they would grow the series without bound. The run and call APIs name them.
 */
export const UPSTREAM_LABEL = 'upstream';

const bounded = (name: string): string => (isUpstreamToolName(name) ? UPSTREAM_LABEL : name);

const VENDOR_SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const APPROVAL_SECONDS = [1, 10, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 86_400, 3 * 86_400];
const LAG_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const FIRST_TOKEN_SECONDS = [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64];

export class ToolgateMetrics {
  readonly registry = new Registry();

  private readonly toolCalls = new Counter({
    name: 'toolgate_tool_calls_total',
    help: 'Gateway answers to tool calls by tool (tool.action), policy decision (none: refused before the policy), status reached and error code (none)',
    labelNames: ['tool', 'decision', 'status', 'code'] as const,
    registers: [this.registry],
  });

  private readonly vendorDuration = new Histogram({
    name: 'toolgate_vendor_request_duration_seconds',
    help: 'One attempt at a vendor (HTTP exchange, timeout included) by vendor, tool and outcome (success or the failure reason)',
    labelNames: ['vendor', 'tool', 'outcome'] as const,
    buckets: VENDOR_SECONDS,
    registers: [this.registry],
  });

  private readonly vendorRetries = new Counter({
    name: 'toolgate_vendor_retries_total',
    help: 'Retries of idempotent vendor actions by vendor, tool and the cause of the failed attempt (HTTP status, timeout, connection_reset)',
    labelNames: ['vendor', 'tool', 'cause'] as const,
    registers: [this.registry],
  });

  private readonly breakerState = new Gauge({
    name: 'toolgate_vendor_breaker_state',
    help: "The worst circuit breaker state of a vendor across this node's orgs: 0 closed, 1 half-open, 2 open",
    labelNames: ['vendor'] as const,
    registers: [this.registry],
  });

  private readonly breakerTransitions = new Counter({
    name: 'toolgate_vendor_breaker_transitions_total',
    help: 'Circuit breaker state changes by vendor and the state entered',
    labelNames: ['vendor', 'state'] as const,
    registers: [this.registry],
  });

  private readonly approvalResolution = new Histogram({
    name: 'toolgate_approval_resolution_seconds',
    help: 'From an approval request to its resolution, by kind (expert, client) and outcome (approved, rejected, expired)',
    labelNames: ['kind', 'outcome'] as const,
    buckets: APPROVAL_SECONDS,
    registers: [this.registry],
  });

  private readonly subscriptionsOpen = new Gauge({
    name: 'toolgate_subscriptions_open',
    help: 'GraphQL subscriptions open on this node by root field',
    labelNames: ['subscription'] as const,
    registers: [this.registry],
  });

  private readonly eventLag = new Histogram({
    name: 'toolgate_subscription_event_lag_seconds',
    help: "From a ledger event's append to its delivery to this node's subscriptions",
    buckets: LAG_SECONDS,
    registers: [this.registry],
  });

  private readonly firstToken = new Histogram({
    name: 'toolgate_model_time_to_first_token_seconds',
    help: 'From a model request to its first streamed content, by model',
    labelNames: ['model'] as const,
    buckets: FIRST_TOKEN_SECONDS,
    registers: [this.registry],
  });

  private readonly modelTokens = new Counter({
    name: 'toolgate_model_tokens_total',
    help: 'Model tokens by model and direction (input, output; cache_write and cache_read: prompt-cache input tokens)',
    labelNames: ['model', 'direction'] as const,
    registers: [this.registry],
  });

  private readonly reconciliations = new Counter({
    name: 'toolgate_reconciliations_total',
    help: 'Interrupted tool calls settled by reconciliation, by how (re_executed, vendor_confirmed, vendor_not_performed, vendor_outcome_unknown, input_lost)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly upstreamDrifts = new Counter({
    name: 'toolgate_upstream_tool_drifts_total',
    help: 'Imported upstream MCP tools an import found changed (description, title or input schema) against the text an admin enabled; each is turned off until enabled again',
    registers: [this.registry],
  });

  /** Non-closed breakers by vendor, then by breaker (org and vendor): the gauge shows the worst. */
  private readonly breakers = new Map<string, Map<string, BreakerState>>();

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  toolCall(tool: string, decision: string, status: string, code: string | null): void {
    this.toolCalls.inc({ tool: bounded(tool), decision, status, code: code ?? 'none' });
  }

  vendorAttempt(vendor: string, tool: string, outcome: string, milliseconds: number): void {
    this.vendorDuration.observe({ vendor: bounded(vendor), tool: bounded(tool), outcome }, Math.max(0, milliseconds) / 1000);
  }

  vendorRetry(vendor: string, tool: string, cause: string): void {
    this.vendorRetries.inc({ vendor: bounded(vendor), tool: bounded(tool), cause });
  }

  /** Vendors shown (closed) before any of their breakers changes. */
  knownVendors(vendors: Iterable<string>): void {
    for (const vendor of vendors) if (!this.breakers.has(vendor)) this.breakerState.set({ vendor }, BREAKER_STATE.closed);
  }

  breakerChanged(named: string, breaker: string, state: BreakerState): void {
    const vendor = bounded(named);
    this.breakerTransitions.inc({ vendor, state });
    let states = this.breakers.get(vendor);
    if (!states) this.breakers.set(vendor, (states = new Map()));
    if (state === 'closed') states.delete(breaker);
    else states.set(breaker, state);
    let worst: number = BREAKER_STATE.closed;
    for (const s of states.values()) worst = Math.max(worst, BREAKER_STATE[s]);
    this.breakerState.set({ vendor }, worst);
  }

  approvalResolved(approval: { kind: string; status: string; createdAt: Date; resolvedAt?: Date | null }): void {
    const seconds = ((approval.resolvedAt ?? new Date()).getTime() - approval.createdAt.getTime()) / 1000;
    this.approvalResolution.observe({ kind: approval.kind, outcome: approval.status }, Math.max(0, seconds));
  }

  /** A subscription started; the answer ends it (once, however often it is called). */
  subscriptionOpened(subscription: string): () => void {
    this.subscriptionsOpen.inc({ subscription });
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.subscriptionsOpen.dec({ subscription });
    };
  }

  /** Ledger events handed to this node's subscriptions, `now` in epoch milliseconds. */
  eventsDelivered(events: readonly { createdAt: Date }[], now: number): void {
    for (const event of events) this.eventLag.observe(Math.max(0, now - event.createdAt.getTime()) / 1000);
  }

  modelTurn(
    model: string,
    turn: {
      firstTokenMs: number | null;
      usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
    },
  ): void {
    if (turn.firstTokenMs !== null) this.firstToken.observe({ model }, turn.firstTokenMs / 1000);
    this.modelTokens.inc({ model, direction: 'input' }, turn.usage.input_tokens);
    this.modelTokens.inc({ model, direction: 'output' }, turn.usage.output_tokens);
    // Only a turn that used the prompt cache makes these series exist.
    if (turn.usage.cache_creation_input_tokens) this.modelTokens.inc({ model, direction: 'cache_write' }, turn.usage.cache_creation_input_tokens);
    if (turn.usage.cache_read_input_tokens) this.modelTokens.inc({ model, direction: 'cache_read' }, turn.usage.cache_read_input_tokens);
  }

  /** Imported tools an import found drifted from their pinned text. */
  upstreamDrifted(tools: number): void {
    if (tools > 0) this.upstreamDrifts.inc(tools);
  }

  reconciled(outcome: string): void {
    this.reconciliations.inc({ outcome });
  }

  /** The text exposition format, for a scrape. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
