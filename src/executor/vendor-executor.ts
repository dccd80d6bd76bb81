import type { MikroORM } from '@mikro-orm/postgresql';
import { CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen, retry, type CircuitBreakerPolicy } from 'cockatiel';
import { readCredential } from '../credentials/credential.service';
import { AppError } from '../errors/app-error';
import type { Logger } from '../support/logger';
import type { Config } from '../config';
import type { MasterKeyring } from '../credentials/keyring';
import type { VendorAction, VendorContext, VendorHandler } from '../vendors/vendor-handler';
import type { ExecutionOutcome, ExecutionRequest, ExecutorErrorCode, LookupOutcome, RetryRecord, ToolExecutor } from './executor.types';
import type { DynamicActions, RegisteredAction, VendorRegistry } from './vendor-registry';
import { AttemptTimeoutError, classifyFailure, sanitizedText } from './failure-classifier';
import { earlierEffectMayExist } from './earlier-effect';
import { LANDING_GRACE_MS, effectKeyOf, outcomeAfterLookup, uncertaintyOf, type Uncertainty } from './uncertain-outcome';
import { VendorPartialError } from '../vendors/vendor-handler';
import { ClockHalfOpen, NO_WAIT, retryDelayMs } from './backoff';
import { toolKey } from '../catalog/tool-key';
import { systemClock, type Clock } from '../support/clock';
import type { BreakerState, ToolgateMetrics } from '../telemetry/metrics';

export interface VendorExecutorDeps {
  orm: MikroORM;
  keyring: MasterKeyring;
  registry: VendorRegistry;
  /** Actions read per call (imported upstream MCP tools), after the registry. */
  dynamic?: DynamicActions;
  settings: Config['vendor'];
  /** Endpoint overrides by environment name (config.vendorUrls). */
  urlOverrides: Record<string, string>;
  /** vendor → sandbox base URL, when the sandboxes serve the vendors. */
  sandboxUrls: Record<string, string> | null;
  logger: Logger;
  /** The time of token caches and the breaker's half-open delay (default: the system clock). */
  clock?: Clock;
  /** Attempt durations, retries and breaker states (src/telemetry/metrics.ts). */
  metrics?: ToolgateMetrics;
}

/** A call ready for its attempts, or why it cannot be made. */
type Prepared =
  | {
      ok: true;
      handler: VendorHandler;
      // biome-ignore lint/suspicious/noExplicitAny: one handler's actions take different inputs and results
      action: VendorAction<any, any>;
      credentials: Record<string, unknown>;
      urls: Record<string, string>;
      timeoutMs: number;
      /** An earlier identical request of the run may have left an effect (earlier-effect.ts). */
      lookForEarlierEffect: boolean;
    }
  | { ok: false; code: ExecutorErrorCode; reason: string };

/**
 * Layer 4: decrypts the org's credential, calls the vendor handler with a timeout per
 * attempt, retries only what is safe (idempotent actions; 429/502/503/504, timeouts,
 * resets; honouring Retry-After), and keeps a circuit breaker per org and vendor. For
 * reconciliation, `lookup` asks the vendor whether a call happened.
 */
export class VendorExecutor implements ToolExecutor {
  private readonly breakers = new Map<string, CircuitBreakerPolicy>();
  /** Per-vendor memory for handlers (e.g. cached access tokens), never shared across vendors. */
  private readonly caches = new Map<string, Map<string, unknown>>();

  private readonly clock: Clock;

  constructor(private readonly deps: VendorExecutorDeps) {
    this.clock = deps.clock ?? systemClock;
    deps.metrics?.knownVendors(deps.registry.handlers.keys());
  }

  async execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    const retries: RetryRecord[] = [];
    const tool = toolKey(request.tool.toolName, request.tool.action);
    let registered: RegisteredAction | undefined;
    try {
      registered = await this.find(request);
    } catch (error) {
      this.deps.logger.error({ err: error, tool }, 'could not load the tool action');
      return fail('VENDOR_ERROR', 'handler_error', null, retries);
    }
    if (!registered) {
      this.deps.logger.error({ tool }, 'no vendor handler for a catalog tool');
      return fail('VENDOR_ERROR', 'no_handler', null, retries);
    }
    const prepared = await this.prepare(request, registered);
    if (!prepared.ok) return fail(prepared.code, prepared.reason, null, retries);
    const { action } = prepared;
    const attempt = this.attempt(request, prepared, (ctx) => action.execute(request.params, ctx));

    try {
      // The action's own flag: the catalog's `idempotent` is derived from it, not a second opinion.
      const data = action.idempotent ? await this.withRetries(attempt, retries, prepared.handler.vendor, tool) : await attempt();
      return { ok: true, data, vendorStatusCode: 200, retries };
    } catch (error) {
      const failure = classifyFailure(error);
      if (failure.reason === 'handler_error') {
        this.deps.logger.error({ err: error, tool }, 'vendor handler failed');
      } else {
        // Operators' line: the stable code and the vendor's status, never its text (the error is not logged).
        this.deps.logger.warn(
          {
            code: failure.code,
            reason: failure.reason,
            vendor: prepared.handler.vendor,
            tool,
            status: failure.vendorStatusCode,
            retries: retries.length,
            toolCallId: request.toolCallId,
          },
          'vendor call failed',
        );
      }
      const uncertainty = action.idempotent ? null : uncertaintyOf(error);
      if (uncertainty) return this.settleUncertain(request, uncertainty, failure.vendorStatusCode);
      return fail(failure.code, failure.reason, failure.vendorStatusCode, retries);
    }
  }

  /**
   * A non-idempotent attempt that may have acted: once its request can no longer land, the
   * vendor is asked (lookup, with the call's key, finishing a partial action), so the call
   * is never reported failed when it was done, nor left to be repeated when it may have been.
   */
  private async settleUncertain(request: ExecutionRequest, uncertainty: Uncertainty, vendorStatusCode: number | null): Promise<ExecutionOutcome> {
    if (uncertainty.mayLand) await this.clock.sleep(LANDING_GRACE_MS);
    const found = await this.lookup(request);
    const outcome = outcomeAfterLookup(uncertainty, found, { vendorStatusCode });
    this.deps.logger.warn(
      {
        tool: toolKey(request.tool.toolName, request.tool.action),
        toolCallId: request.toolCallId,
        code: outcome.ok ? null : outcome.code,
        ...outcome.metadata,
      },
      'uncertain vendor outcome settled by asking the vendor',
    );
    return outcome;
  }

  /**
   * Asks the vendor whether the call happened (the action's `lookup`, with the call's
   * idempotency key): the same credential and URLs as `execute`, the per-attempt timeout
   * and the breaker; a lookup is a read, so transient failures are retried like an
   * idempotent action's. Never throws: any failure is `unknown` with its reason.
   */
  async lookup(request: ExecutionRequest): Promise<LookupOutcome> {
    const tool = toolKey(request.tool.toolName, request.tool.action);
    try {
      const registered = await this.find(request);
      const lookup = registered?.action.lookup;
      if (!registered || !lookup) return { kind: 'unknown', reason: 'no_lookup' };
      const prepared = await this.prepare(request, registered);
      if (!prepared.ok) return { kind: 'unknown', reason: prepared.reason };
      const retries: RetryRecord[] = [];
      const attempt = this.attempt(request, prepared, (ctx) => lookup.call(registered.action, request.params, ctx));
      let answer: unknown;
      try {
        answer = await this.withRetries(attempt, retries, prepared.handler.vendor, tool);
      } catch (error) {
        // The effect exists; a later step it tried to finish failed: performed, partly.
        if (error instanceof VendorPartialError) return { kind: 'performed', data: error.result, vendorStatusCode: 200, partial: error.state };
        throw error;
      }
      if (retries.length > 0) this.deps.logger.info({ tool, toolCallId: request.toolCallId, retries }, 'vendor lookup retried');
      if (typeof answer === 'object' && answer !== null && 'performed' in answer) {
        if (answer.performed === true && 'result' in answer) return { kind: 'performed', data: answer.result, vendorStatusCode: 200 };
        if (answer.performed === false) return { kind: 'not_performed' };
      }
      this.deps.logger.error({ tool }, 'vendor lookup answered neither performed nor not performed');
      return { kind: 'unknown', reason: 'handler_error' };
    } catch (error) {
      const failure = classifyFailure(error);
      if (failure.reason === 'handler_error') this.deps.logger.error({ err: error, tool }, 'vendor lookup failed');
      return { kind: 'unknown', reason: failure.reason };
    }
  }

  private async find(request: ExecutionRequest): Promise<RegisteredAction | undefined> {
    return this.deps.registry.find(toolKey(request.tool.toolName, request.tool.action)) ?? (await this.deps.dynamic?.find(request));
  }

  /** What every attempt needs: the org's credential (checked), the endpoint URLs, the timeout. */
  private async prepare(request: ExecutionRequest, { handler, action }: RegisteredAction): Promise<Prepared> {
    let credentials: Record<string, unknown>;
    try {
      const spec = handler.credentialSpec;
      credentials = await readCredential(this.deps.orm.em.fork(), this.deps.keyring, request.orgId, spec.integrationType).catch((error) => {
        if (spec.optional && error instanceof AppError && error.code === 'CREDENTIALS_NOT_FOUND') return {};
        throw error;
      });
      const stored = !spec.optional || Object.keys(credentials).length > 0;
      const missing = (stored ? spec.required : []).filter((field) => {
        const value = credentials[field];
        return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
      });
      if (missing.length > 0) throw new AppError('CREDENTIALS_NOT_FOUND', `credential lacks ${missing.join(', ')}`);
    } catch (error) {
      const failure = classifyFailure(error);
      if (failure.reason === 'handler_error') {
        this.deps.logger.error({ err: error, orgId: request.orgId }, 'could not read the vendor credential');
      }
      return { ok: false, code: failure.code, reason: failure.code === 'CREDENTIALS_NOT_FOUND' ? 'credentials_missing' : failure.reason };
    }

    let urls: Record<string, string>;
    try {
      urls = this.urlsFor(handler, credentials);
    } catch {
      return { ok: false, code: 'CREDENTIALS_UNREADABLE', reason: 'credentials_invalid' };
    }
    // Only a non-idempotent action that can find its effects asks whether an earlier identical request left one.
    const lookForEarlierEffect = !action.idempotent && action.lookup !== undefined && (await earlierEffectMayExist(this.deps.orm.em.fork(), request));
    return { ok: true, handler, action, credentials, urls, timeoutMs: request.tool.timeoutMs ?? this.deps.settings.timeoutMs, lookForEarlierEffect };
  }

  /**
   * One attempt of `call` with the timeout, through the org's breaker for the vendor. An
   * answer that says nothing about the vendor's health (a 404, a 401, a 429) passes
   * through the breaker as a success, so it resets the count of consecutive failures.
   */
  private attempt<T>(
    request: ExecutionRequest,
    prepared: Extract<Prepared, { ok: true }>,
    call: (ctx: VendorContext) => Promise<T>,
  ): () => Promise<T> {
    const { handler, credentials, urls, timeoutMs } = prepared;
    const breaker = this.breakerFor(request.orgId, handler.vendor);
    const tool = toolKey(request.tool.toolName, request.tool.action);
    return async () => {
      const result = await breaker.execute(async () => {
        const begun = this.clock.now();
        try {
          const answer = {
            ok: true as const,
            value: await withTimeout(this.clock, timeoutMs, (signal) =>
              call({
                credentials,
                urls,
                signal,
                idempotencyKey: `toolgate-${request.toolCallId}`,
                effectKey: effectKeyOf(request),
                lookForEarlierEffect: prepared.lookForEarlierEffect,
                cache: this.cacheFor(handler.vendor),
                clock: this.clock,
              }),
            ),
          };
          this.deps.metrics?.vendorAttempt(handler.vendor, tool, 'success', this.clock.now() - begun);
          return answer;
        } catch (error) {
          const failure = classifyFailure(error);
          this.deps.metrics?.vendorAttempt(handler.vendor, tool, failure.cause, this.clock.now() - begun);
          if (failure.vendorUnhealthy) throw error;
          return { ok: false as const, error };
        }
      });
      if (!result.ok) throw result.error;
      return result.value;
    };
  }

  private withRetries<T>(attempt: () => Promise<T>, retries: RetryRecord[], vendor: string, tool: string): Promise<T> {
    const settings = this.deps.settings;
    const policy = retry(
      handleWhen((error) => {
        const failure = classifyFailure(error);
        // A Retry-After beyond what we are willing to wait means: give up now.
        return failure.transient && (failure.retryAfterMs === null || failure.retryAfterMs <= settings.retryMaxDelayMs);
      }),
      { maxAttempts: settings.maxRetries, backoff: NO_WAIT },
    );
    let wait = 0;
    policy.onRetry((event) => {
      const failure = 'error' in event ? classifyFailure(event.error) : null;
      wait = retryDelayMs(failure?.retryAfterMs ?? null, event.attempt, settings.retryBaseMs, settings.retryMaxDelayMs);
      retries.push({ attempt: event.attempt, cause: failure?.cause ?? 'unknown', delayMs: Math.round(wait) });
      this.deps.metrics?.vendorRetry(vendor, tool, failure?.cause ?? 'unknown');
    });
    // The wait before a retry is on the executor's clock (a test's manual clock passes it at once).
    return policy.execute(async ({ attempt: n }) => {
      if (n > 0) await this.clock.sleep(wait);
      return attempt();
    });
  }

  private breakerFor(orgId: string, vendor: string): CircuitBreakerPolicy {
    const key = `${orgId}:${vendor}`;
    let breaker = this.breakers.get(key);
    if (!breaker) {
      breaker = circuitBreaker(
        handleWhen((error) => classifyFailure(error).vendorUnhealthy),
        {
          halfOpenAfter: new ClockHalfOpen(this.clock, this.deps.settings.breakerHalfOpenMs),
          breaker: new ConsecutiveBreaker(this.deps.settings.breakerThreshold),
        },
      );
      breaker.onStateChange((state) => this.breakerChanged(orgId, vendor, state));
      this.breakers.set(key, breaker);
    }
    return breaker;
  }

  /** Every change is an operator's event: a warning (an org id, no vendor text) and the breaker metrics. */
  private breakerChanged(orgId: string, vendor: string, state: CircuitState): void {
    const named: BreakerState = state === CircuitState.Closed ? 'closed' : state === CircuitState.HalfOpen ? 'half_open' : 'open';
    this.deps.metrics?.breakerChanged(vendor, `${orgId}:${vendor}`, named);
    const log = { code: named === 'closed' ? null : 'CIRCUIT_OPEN', vendor, orgId, state: named };
    if (named === 'open')
      this.deps.logger.warn(log, `circuit breaker opened after ${this.deps.settings.breakerThreshold} consecutive vendor failures`);
    else this.deps.logger.warn(log, named === 'closed' ? 'circuit breaker closed' : 'circuit breaker half-open: one probe goes through');
  }

  private cacheFor(vendor: string): Map<string, unknown> {
    let cache = this.caches.get(vendor);
    if (!cache) this.caches.set(vendor, (cache = new Map()));
    return cache;
  }

  /** Override from the environment, else the sandbox, else the real vendor. */
  private urlsFor(handler: VendorHandler, credentials: Record<string, unknown>): Record<string, string> {
    const urls: Record<string, string> = {};
    for (const [name, endpoint] of Object.entries(handler.endpoints)) {
      urls[name] = this.deps.urlOverrides[endpoint.env] ?? this.deps.sandboxUrls?.[handler.vendor] ?? endpoint.production(credentials);
    }
    return urls;
  }
}

/** One attempt, aborted once `timeoutMs` have passed on the executor's clock. */
async function withTimeout<T>(clock: Clock, timeoutMs: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let cancel: (() => void) | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    cancel = clock.after(timeoutMs, () => {
      controller.abort();
      reject(new AttemptTimeoutError());
    });
  });
  try {
    return await Promise.race([run(controller.signal), timedOut]);
  } finally {
    cancel?.();
  }
}

function fail(
  code: Extract<ExecutionOutcome, { ok: false }>['code'],
  reason: string,
  vendorStatusCode: number | null,
  retries: RetryRecord[],
): ExecutionOutcome {
  return { ok: false, code, errorText: sanitizedText(code), reason, vendorStatusCode, retries };
}
