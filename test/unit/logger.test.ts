import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/support/logger';

/** Logs one error through a logger made with these settings and returns the logged `err`. */
function loggedError(settings: Parameters<typeof createLogger>[0], error: Error): { message: string; stack: string } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  createLogger(settings, sink).error({ err: error }, 'failed');
  return JSON.parse(lines[0]).err;
}

const failure = () => new Error('the vendor said no');

describe('logged errors', () => {
  test('outside production: the message and the first own frame, relative to the working folder', () => {
    const err = loggedError({ logLevel: 'info', nodeEnv: 'development' }, failure());
    expect(err.message).toBe('the vendor said no');
    const [head, frame, ...rest] = err.stack.split('\n');
    expect(head).toBe('Error: the vendor said no');
    expect(frame).toMatch(/^ {4}at .*test\/unit\/logger\.test\.ts:\d+:\d+/);
    expect(frame).not.toContain(process.cwd());
    expect(rest).toEqual([]);
  });

  test('TOOLGATE_FULL_STACKS, and production, keep the whole stack', () => {
    for (const settings of [
      { logLevel: 'info', nodeEnv: 'development', fullStacks: true },
      { logLevel: 'info', nodeEnv: 'production' },
    ] as const) {
      const err = loggedError(settings, failure());
      expect(err.stack.split('\n').length).toBeGreaterThan(2);
      expect(err.stack).toContain(process.cwd());
    }
  });
});

/**
 * The output format follows the terminal: pino-pretty on an interactive terminal in
 * development, JSON lines otherwise. The compiled logger runs in a child process, once on a
 * real pseudo-terminal (util-linux `script`) and once on a pipe.
 */
describe('log format', () => {
  const ESC = String.fromCharCode(27);
  const logger = path.join(__dirname, '..', '..', 'dist', 'src', 'support', 'logger.js');
  const probe = `require(${JSON.stringify(logger)}).createLogger({ logLevel: "info", nodeEnv: process.env.NODE_ENV, logFormat: process.env.LOG_FORMAT || undefined }, 1).warn({ code: "VENDOR_ERROR", vendor: "shopify", status: 503 }, "vendor call failed")`;
  const run = (onTerminal: boolean, env: Record<string, string>): string => {
    const options = { env: { ...process.env, LOG_FORMAT: '', ...env }, encoding: 'utf8' as const, timeout: 20_000 };
    return onTerminal
      ? execFileSync('script', ['-qec', `${process.execPath} -e '${probe}'`, '/dev/null'], { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
      : execFileSync(process.execPath, ['-e', probe], options);
  };

  test('pretty (pino-pretty, coloured) on an interactive terminal in development', () => {
    const out = run(true, { NODE_ENV: 'development' });
    // pino-pretty's colours: the level in yellow, field names in magenta.
    expect(out).toContain(`${ESC}[33mWARN${ESC}[39m`);
    expect(out).toContain('vendor call failed');
    expect(out).toContain(`${ESC}[35mcode${ESC}[39m: "VENDOR_ERROR"`);
    expect(out.trim().startsWith('{')).toBe(false);
  });

  test('JSON on a pipe, in production even on a terminal, and whenever LOG_FORMAT=json', () => {
    for (const [onTerminal, env] of [
      [false, { NODE_ENV: 'development' }],
      [true, { NODE_ENV: 'production', MASTER_ENCRYPTION_KEY: 'ab'.repeat(32) }],
      [true, { NODE_ENV: 'development', LOG_FORMAT: 'json' }],
    ] as const) {
      const line = JSON.parse(run(onTerminal, env).trim());
      expect(line).toMatchObject({ level: 40, code: 'VENDOR_ERROR', vendor: 'shopify', status: 503, msg: 'vendor call failed' });
    }
  });

  test('LOG_FORMAT=pretty on a pipe: pretty, without colours', () => {
    const out = run(false, { NODE_ENV: 'production', LOG_FORMAT: 'pretty' });
    expect(out).toMatch(/WARN.*vendor call failed/);
    expect(out).not.toContain(ESC);
  });
});
