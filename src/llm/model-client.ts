import Anthropic from '@anthropic-ai/sdk';
import type { Config } from '../config';

/**
 * The real Anthropic SDK, pointed at Claude (ANTHROPIC_API_KEY), at any compatible
 * endpoint (ANTHROPIC_BASE_URL), or at the in-process offline model. The SDK's own
 * retries handle 429, 529 and 5xx.
 */
export function createModelClient(settings: Config['model'], offlineBaseUrl: string | null): Anthropic {
  const baseURL = settings.baseUrl ?? offlineBaseUrl ?? undefined;
  return new Anthropic({
    apiKey: settings.apiKey ?? 'offline-model',
    baseURL,
    maxRetries: settings.maxRetries,
    timeout: 120_000,
    // Toolgate's own `chat` span (src/telemetry/trace-model.ts) traces each request, and the
    // fetch instrumentation its HTTP: the SDK's spans would count tokens twice, and its
    // environment switch for message content must never put prompts or tool results in spans.
    openTelemetry: { traces: false, propagation: false },
  });
}

/** Whether the offline model must serve: no key and no endpoint were configured. */
export const needsOfflineModel = (settings: Config['model']): boolean => !settings.apiKey && !settings.baseUrl;

/**
 * Token usage to cost in micro-dollars: the per-million-token price in dollars is exactly that.
 * Output tokens include thinking; prompt-cache writes and reads are priced at their percent of
 * the input price (rounded to a micro-dollar per turn).
 */
export function costMicros(
  settings: Config['model'],
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number },
): number {
  const cached =
    (usage.cache_creation_input_tokens ?? 0) * settings.cacheWritePricePercent +
    (usage.cache_read_input_tokens ?? 0) * settings.cacheReadPricePercent;
  return (
    usage.input_tokens * settings.inputPricePerMTok +
    usage.output_tokens * settings.outputPricePerMTok +
    Math.round((cached * settings.inputPricePerMTok) / 100)
  );
}
