import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../../src/support/paths';

/**
 * The compiled `toolgate` command as real child processes (`node dist/src/cli.js …`), each
 * with its stdout and stderr appended to a log file of its own. Every child is tracked
 * until it closes, so `killAll` can leave nothing behind — after a failed scenario, an
 * exception, or Ctrl-C. CHAOS_CLI runs another build's cli.js instead.
 */
export const CLI = process.env.CHAOS_CLI ? path.resolve(process.env.CHAOS_CLI) : path.join(projectRoot(), 'dist', 'src', 'cli.js');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Child {
  name: string;
  child: ChildProcess;
  pid: number;
  logFile: string;
  startedAt: number;
  /** What the child wrote to stdout so far (also in its log file). */
  stdout(): string;
  alive(): boolean;
  exited: Promise<Exit>;
  /** SIGKILL, and wait until it closed. */
  kill(): Promise<Exit>;
}

const live = new Set<Child>();

export function spawnCli(name: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): Child {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  log.write(`# ${new Date().toISOString()} node ${path.relative(projectRoot(), CLI)} ${args.join(' ')}\n`);
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    log.write(chunk);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => log.write(chunk));
  let closed = false;
  const exited = new Promise<Exit>((resolve) => {
    child.once('error', (error) => {
      log.write(`# spawn error: ${error.message}\n`);
    });
    child.once('close', (code, signal) => {
      closed = true;
      live.delete(running);
      log.end(`# ${new Date().toISOString()} exited code=${code} signal=${signal}\n`);
      resolve({ code, signal });
    });
  });
  const running: Child = {
    name,
    child,
    pid: child.pid ?? -1,
    logFile,
    startedAt: Date.now(),
    stdout: () => stdout,
    alive: () => !closed && child.exitCode === null && child.signalCode === null,
    exited,
    kill: async () => {
      if (!closed) child.kill('SIGKILL');
      return exited;
    },
  };
  live.add(running);
  return running;
}

/** SIGKILLs every child still running and waits for each to close. */
export async function killAll(): Promise<void> {
  await Promise.all([...live].map((child) => child.kill()));
}

/** Synchronous last resort (process 'exit'): SIGKILL whatever is still running. */
export function killAllNow(): void {
  for (const running of live) {
    try {
      running.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Runs a CLI command to its end (killed, and rejected, when it takes longer than `timeoutMs`). */
export async function runCli(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  timeoutMs: number,
): Promise<Exit & { stdout: string }> {
  const running = spawnCli(name, args, env, logFile);
  const exit = await withTimeout(running.exited, timeoutMs, async () => {
    await running.kill();
    return `${name} (${args.join(' ')}) did not finish within ${timeoutMs} ms; log: ${logFile}`;
  });
  return { ...exit, stdout: running.stdout() };
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Promise<string> | string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      Promise.resolve(onTimeout()).then(
        (message) => reject(new Error(message)),
        (error: unknown) => reject(error),
      );
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export { freePort } from '../../src/db/throwaway-postgres';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
