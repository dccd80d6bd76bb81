import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src/db/throwaway-postgres';

/**
 * A redis-server the harness (and the outage tests) own: on a port of its own, without
 * persistence, SIGKILLed (its connections drop, nothing is saved) and started again on the
 * same port. Nothing else uses it.
 */
export interface PrivateRedis {
  url: string;
  port: number;
  /** SIGKILL: connections drop, nothing is saved. */
  crash(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** A redis-server on a port of its own (no persistence), for the Redis-loss scenario. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s: ${output}`)), 10_000);
      proc.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}): ${output}`));
      });
    });
  };
  const kill = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const gone = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await gone;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, crash: kill, restart: start, close: kill };
}
