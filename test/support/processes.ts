import path from 'node:path';
import { execFile, spawn, type ChildProcess } from 'node:child_process';

/**
 * The compiled `toolgate` command run as a user would: a child process with only env and
 * argv (`npm test` builds dist/ before jest runs). Children are tracked so a test file can
 * kill whatever is left in afterAll, even when a test failed halfway.
 */
export const CLI = path.join(__dirname, '..', '..', 'dist', 'src', 'cli.js');

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<ExitResult>;
}

const live = new Set<ChildProcess>();

/** `ownGroup`: in a process group of its own, as a shell runs a command (signal it with `process.kill(-pid)`, as Ctrl-C does). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv, options: { ownGroup?: boolean } = {}): Running {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.ownGroup === true });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<ExitResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Kills every child still running and waits for it to close. */
export async function killChildren(): Promise<void> {
  for (const child of [...live]) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('close', resolve));
    }
  }
}

/** process.env with overrides; an override of undefined removes the variable. */
export function childEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...overrides };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return env;
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, describe: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(describe())), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `probe` until it yields a value; fails early if the given server process exits. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, server?: Running): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (server && (server.child.exitCode !== null || server.child.signalCode !== null)) {
      throw new Error(
        `server exited (${server.child.exitCode ?? server.child.signalCode}) while waiting for ${what}\nstdout: ${server.stdout()}\nstderr: ${server.stderr()}`,
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${server ? `\nstdout: ${server.stdout()}\nstderr: ${server.stderr()}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export { freePort } from '../../src/db/throwaway-postgres';

/**
 * One `toolgate` command against a test app's database (its master key, logs silent), run to
 * its end: the exit code and what it printed. `env` adds or overrides variables.
 */
export function runCliOn(
  database: { url: string },
  masterKeyHex: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const childEnv = {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      MASTER_ENCRYPTION_KEY: masterKeyHex,
      ...env,
    };
    execFile(process.execPath, [CLI, ...args], { env: childEnv, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}
