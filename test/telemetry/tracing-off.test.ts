import { execFile } from 'node:child_process';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { loadConfig, tracingConfig } from '../../src/config';
import { isTracingOn, startTracing } from '../../src/telemetry/tracing';
import { scrubSql } from '../../src/telemetry/tracing-sdk';
import { startTestApp, type TestApp } from '../support/app';
import { seedDemo } from '../../src/seed/demo-seed';
import { RunClient } from '../runs/run-helpers';

/**
 * Tracing is off unless an OTEL_* exporter variable names somewhere to send spans: then no
 * SDK is loaded or started, the tracer is the API's no-op one, and nothing about traces
 * reaches a run or its job payload.
 */
describe('the on/off decision (Config.tracing)', () => {
  test('off without an exporter variable, on with an OTLP endpoint or a trace exporter', () => {
    expect(loadConfig({}).tracing).toEqual({ enabled: false, serviceName: 'toolgate', endpoint: undefined });
    expect(tracingConfig({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).enabled).toBe(false);
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      enabled: true,
      serviceName: 'toolgate',
      endpoint: 'http://collector:4318/v1/traces',
    });
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example/v1/traces', OTEL_SERVICE_NAME: 'gw' })).toEqual({
      enabled: true,
      serviceName: 'gw',
      endpoint: 'https://otlp.example/v1/traces',
    });
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: 'console' }).enabled).toBe(true);
  });

  test('an explicit "none" or OTEL_SDK_DISABLED wins; a bad endpoint is a configuration error', () => {
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).enabled).toBe(false);
    expect(tracingConfig({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).enabled).toBe(false);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
  });
});

const CLI_DIR = path.join(__dirname, '..', '..', 'dist', 'src');

/** Loads the command's first import in a fresh process; answers whether the SDK got loaded and whether spans record. */
function bootProbe(env: Record<string, string>): Promise<{ sdkLoaded: boolean; recording: boolean }> {
  const script = `
    require(${JSON.stringify(path.join(CLI_DIR, 'telemetry', 'tracing-boot.js'))});
    const { trace } = require('@opentelemetry/api');
    const span = trace.getTracer('probe').startSpan('probe');
    const sdkLoaded = Object.keys(require.cache).some((file) => file.includes('@opentelemetry/sdk-node'));
    process.stdout.write(JSON.stringify({ sdkLoaded, recording: span.isRecording() }));
    process.exit(0);
  `;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script], { env: { PATH: process.env.PATH, ...env }, cwd: path.join(__dirname, '..', '..') }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout)),
    );
  });
}

describe('the toolgate command', () => {
  test('without OTEL_* variables loads no SDK and records nothing; with an endpoint it starts the SDK first', async () => {
    expect(await bootProbe({})).toEqual({ sdkLoaded: false, recording: false });
    expect(await bootProbe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toEqual({ sdkLoaded: true, recording: true });
  });
});

describe('a run with tracing off', () => {
  let app: TestApp;
  afterAll(async () => {
    await app?.close();
  });

  test('no SDK, a no-op tracer, and no trace context on the run or in its job payload', async () => {
    expect(startTracing(loadConfig({}).tracing)).toBe(false);
    expect(isTracingOn()).toBe(false);
    expect(trace.getTracer('toolgate').startSpan('x').isRecording()).toBe(false);
    // No worker: the step's job stays in the queue to be read.
    app = await startTestApp({}, { worker: false });
    const seed = await seedDemo(app.em(), app.masterKey);
    const runs = new RunClient(app, seed);
    const { id } = await runs.start('Where is my order 1001?');
    // The job's payload as stored (the jobs view leaves it out); its key is the run's.
    const [job] = await app
      .em()
      .execute<{ payload: Record<string, unknown> }[]>('select payload from graphile_worker._private_jobs where key = ?', [`run:${id}`]);
    expect(job.payload).toEqual({ runId: id });
    const [run] = await app.em().execute<{ metadata: Record<string, unknown> }[]>('select metadata from agent_runs where id = ?', [id]);
    // The manifest and the frozen thinking budget, and no trace context.
    expect(Object.keys(run.metadata).sort()).toEqual(['runtimeManifest', 'thinkingBudgetTokens']);
  });
});

describe('SQL in spans', () => {
  test('keeps the statement, not its values', () => {
    expect(scrubSql(`select "s0".* from "runs" as "s0" where "s0"."id" = '5f0c-1' and "s0".note = 'it''s Birds@Intuit.com' limit 1`)).toBe(
      'select "s0".* from "runs" as "s0" where "s0"."id" = ? and "s0".note = ? limit ?',
    );
    expect(scrubSql(`update t set n = n + 894, x = -1.5e3, y = E'a\\'b' where id = $1 and t1.c = $2`)).toBe(
      'update t set n = n + ?, x = ?, y = ? where id = $1 and t1.c = $2',
    );
  });
});
