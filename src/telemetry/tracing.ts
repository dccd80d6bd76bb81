// Whether traces are recorded, and the SDK's start and stop (README, "Traces").
import { context, propagation, trace } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../config';
import type { TracingSdk } from './tracing-sdk';

let sdk: TracingSdk | null = null;

/**
 * Whether spans are recorded. Off (no OTEL_* exporter variable), the hooks in the gateway,
 * runtime and API call straight through: not even a no-op span is made on the hot path.
 */
export function isTracingOn(): boolean {
  return sdk !== null;
}

/**
 * Starts the SDK when `settings.enabled` (true when it did). Call it before `pg` is first
 * required, so that its instrumentation sees the module load: `toolgate` does so on its
 * first line (src/telemetry/tracing-boot.ts). Off, the SDK is not even loaded.
 */
export function startTracing(settings: TracingConfig, options: { spanProcessors?: SpanProcessor[] } = {}): boolean {
  if (!settings.enabled || sdk) return sdk !== null;
  // Required here, not imported: loading the SDK costs seconds that a start without traces need not pay.
  const { startTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  sdk = startTracingSdk(settings, options.spanProcessors);
  return true;
}

/** Flushes and stops the SDK, for at most `timeoutMs`: an unreachable collector must not hold the exit. */
export async function stopTracing(timeoutMs = 2000): Promise<void> {
  const stopping = sdk;
  if (!stopping) return;
  sdk = null;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    stopping.shutdown().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  // A later start (a test's) registers afresh.
  trace.disable();
  context.disable();
  propagation.disable();
}
