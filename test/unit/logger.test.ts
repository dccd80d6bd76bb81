import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';

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
