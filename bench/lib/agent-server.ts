import { OfflineModelServer } from '../../src/llm/dev-double/offline-model.server';
import { respond } from '../../src/llm/dev-double/offline-model.brain';
import type { MessagesRequest, RespondFn } from '../../src/llm/dev-double/offline-model.types';
import type { ToolExecutor } from '../../src/executor/executor.types';
import { seedDemo, type SeedResult } from '../../src/seed/demo-seed';
import { startBenchServer, VENDOR_RESULT, type BenchServer } from './app';
import type { BenchDatabase } from './database';
import { wallNow } from './timing';
import { appendFileSync } from 'node:fs';

/**
 * A Toolgate server that drives runs itself: the job worker (src/jobs/worker.ts's
 * settings) and the agent runtime streaming from an offline model served in this process,
 * with the instant vendor. Every model request is reported to `onModelRequest` (with the
 * wall-clock time it reached the model, once its body was read) before it is answered.
 */
export interface AgentServer {
  server: BenchServer;
  model: OfflineModelServer;
  /** The demo org, with a key of every role. */
  seed: SeedResult;
  onModelRequest: ((request: MessagesRequest, at: number) => void) | null;
  /**
   * SQL statements the server's ORM has sent so far, counted only with
   * BENCH_COUNT_STATEMENTS=1 (counting costs CPU: figures of such a run are not for the
   * record); null otherwise. The job worker's own pool (graphile-worker) is not counted.
   */
  statements: number | null;
  close(): Promise<void>;
}

/** What the instant vendor answers an invoice with: a sent QuickBooks invoice as the handler normalizes it. */
const INVOICE_RESULT = {
  invoiceId: '1037',
  docNumber: '1037',
  totalAmount: 120.5,
  currency: 'USD',
  customerId: '1',
  emailStatus: 'EmailSent',
  sentTo: 'customer1@example.com',
};

/** The instant vendor, answering each tool the way its handler would. */
export const instantAgentExecutor: ToolExecutor = {
  execute: async (request) => ({
    ok: true,
    data: request.tool.toolName === 'invoice' ? INVOICE_RESULT : VENDOR_RESULT,
    vendorStatusCode: 200,
    retries: [],
  }),
};

export async function startAgentServer(
  db: BenchDatabase,
  options: {
    deltaDelayMs?: number;
    wordsPerDelta?: number;
    /** The vendor (default: the instant one). */
    executor?: ToolExecutor;
    /** The model's brain (default: the offline model's). */
    respond?: RespondFn;
  } = {},
): Promise<AgentServer> {
  let agent: AgentServer | null = null;
  // With BENCH_COUNT_STATEMENTS=1, BENCH_TRACE_STATEMENTS=<file> also appends each statement and model request with its wall time (ms).
  const trace = process.env.BENCH_TRACE_STATEMENTS;
  const traced: string[] = [];
  const model = new OfflineModelServer({
    deltaDelayMs: options.deltaDelayMs,
    wordsPerDelta: options.wordsPerDelta,
    respond: (request) => {
      agent?.onModelRequest?.(request, wallNow());
      if (trace) traced.push(`${wallNow().toFixed(2)} MODEL REQUEST (${request.messages.length} messages)`);
      return (options.respond ?? respond)(request);
    },
  });
  const modelUrl = await model.start();
  const count = process.env.BENCH_COUNT_STATEMENTS === '1';
  let server: BenchServer;
  try {
    server = await startBenchServer(db, {
      offlineModelUrl: modelUrl,
      worker: true,
      executor: options.executor ?? instantAgentExecutor,
      onQuery: count
        ? (sql) => {
            if (agent && agent.statements !== null) agent.statements++;
            if (trace) traced.push(`${wallNow().toFixed(2)} ${sql.replace(/\s+/g, ' ').slice(0, 400)}`);
          }
        : undefined,
    });
  } catch (error) {
    await model.stop();
    throw error;
  }
  try {
    const seed = await seedDemo(server.em(), server.services.keyring);
    agent = {
      server,
      model,
      seed,
      onModelRequest: null,
      statements: count ? 0 : null,
      async close() {
        if (trace) appendFileSync(trace, `${traced.join('\n')}\n# agent server closed\n`);
        await server.close();
        await model.stop();
      },
    };
    return agent;
  } catch (error) {
    await server.close();
    await model.stop();
    throw error;
  }
}
