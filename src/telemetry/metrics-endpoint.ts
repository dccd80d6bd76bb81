import type http from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MetricsConfig } from '../config';
import type { Logger } from '../support/logger';
import { LoopbackServer } from '../support/loopback-server';
import type { ToolgateMetrics } from './metrics';

export const METRICS_PATH = '/metrics';

/**
 * GET /metrics: the registry in the text exposition format. With a token, only to
 * `Authorization: Bearer <token>` (401 otherwise); `token` null means open, which only the
 * separate listener (METRICS_PORT, loopback by default) allows. Outside the GraphQL route,
 * so neither API keys nor the rate limit apply to it.
 */
export function metricsHandler(metrics: ToolgateMetrics, token: string | null, logger: Logger) {
  const expected = token === null ? null : digest(token);
  return (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (expected !== null && !authorized(req.headers.authorization, expected)) {
      res
        .writeHead(401, { 'www-authenticate': 'Bearer realm="metrics"', 'content-type': 'text/plain; charset=utf-8' })
        .end('metrics need a bearer token\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'metrics: the scrape failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
      },
    );
  };
}

/**
 * The API port's handler: the token of the configuration, and none configured means
 * refused to everyone (the API port may be public; METRICS_PORT serves without a token).
 */
export function apiPortMetricsHandler(metrics: ToolgateMetrics, config: MetricsConfig, logger: Logger) {
  if (config.token !== undefined) return metricsHandler(metrics, config.token, logger);
  return (_req: http.IncomingMessage, res: http.ServerResponse): void => {
    res
      .writeHead(401, { 'www-authenticate': 'Bearer realm="metrics"', 'content-type': 'text/plain; charset=utf-8' })
      .end('metrics are off on this port: set METRICS_TOKEN, or METRICS_PORT for a listener of their own\n');
  };
}

/** METRICS_PORT's listener: only /metrics, on METRICS_HOST (loopback unless configured). */
export async function startMetricsServer(metrics: ToolgateMetrics, config: MetricsConfig & { port: number }, logger: Logger) {
  const handle = metricsHandler(metrics, config.token ?? null, logger);
  const server = new LoopbackServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://metrics').pathname !== METRICS_PATH) res.writeHead(404).end();
    else handle(req, res);
  });
  const base = await server.start(config.port, config.host);
  return { url: `${base}${METRICS_PATH}`, stop: () => server.stop() };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time comparison of the presented bearer token (hashed first: equal lengths). */
function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1]), expected);
}
