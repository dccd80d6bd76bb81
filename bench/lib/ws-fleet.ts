import os from 'node:os';
import path from 'node:path';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { bounded, wallNow } from './timing';
import type { ClockReply, CollectReply, FleetRequest, FleetResponse, FleetVariant, OpenReply, Publication } from './ws-fleet-protocol';

/**
 * The bench process's handle on its websocket-client child (ws-fleet-child.ts, compiled
 * next to this file). Requests are answered in order of completion, matched by id.
 */
export class WsFleet {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly exited: Promise<number | null>;
  /** Child clock − this process's clock (ms), from `calibrate()`. */
  offsetMs = 0;
  /** Round trip of the best calibration sample (ms): the offset's uncertainty is half of it. */
  rttMs = Number.NaN;
  /** How the child was placed (its nice value, its CPUs), for the log and the report. */
  placement = 'as the bench process';

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.on('message', (message: FleetResponse) => {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.ok) waiter.resolve(message.result);
      else waiter.reject(new Error(`websocket clients: ${message.error}`));
    });
    child.once('exit', (code, signal) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`the websocket-client process exited (${code ?? signal})`));
      this.pending.clear();
    });
  }

  static async start(): Promise<WsFleet> {
    const child = fork(path.join(__dirname, 'ws-fleet-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await bounded(
      new Promise<void>((resolve, reject) => {
        child.once('spawn', () => resolve());
        child.once('error', reject);
      }),
      'the websocket-client process to start',
    );
    const fleet = new WsFleet(child);
    fleet.placement = place(child.pid!);
    return fleet;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  request<T>(request: FleetRequest, timeoutMs = 120_000): Promise<T> {
    const id = this.nextId++;
    const answer = new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child.send({ id, request });
    });
    return bounded(answer, `the websocket clients to answer ${request.cmd}`, timeoutMs);
  }

  /**
   * The child's clock offset, from the ping with the shortest round trip (an NTP-like
   * estimate); publish times are converted to the child's clock before latencies are computed.
   */
  async calibrate(samples = 30): Promise<void> {
    let best = { rtt: Number.POSITIVE_INFINITY, offset: 0 };
    for (let i = 0; i < samples; i++) {
      const sent = wallNow();
      const { now } = await this.request<ClockReply>({ cmd: 'clock' });
      const back = wallNow();
      if (back - sent < best.rtt) best = { rtt: back - sent, offset: now - (sent + back) / 2 };
    }
    this.offsetMs = best.offset;
    this.rttMs = best.rtt;
  }

  /** graphql-ws connections, acknowledged, without subscriptions. */
  openGql(url: string, key: string, count: number): Promise<OpenReply> {
    return this.request<OpenReply>({ cmd: 'open-gql', url, key, count });
  }

  /** One subscription on each graphql-ws connection; resolves once each had its first event. */
  subscribeGql(query: string, variables: Record<string, unknown>, field: string): Promise<OpenReply> {
    return this.request<OpenReply>({ cmd: 'subscribe-gql', query, variables, field });
  }

  openRaw(url: string, count: number): Promise<OpenReply> {
    return this.request<OpenReply>({ cmd: 'open-raw', url, count });
  }

  record(variant: FleetVariant): Promise<void> {
    return this.request<void>({ cmd: 'record', variant });
  }

  /** Waits (at most `timeoutMs`) for every client to have every event; `publishes` in this process's clock (`wallNow()`). */
  collect(variant: FleetVariant, publishes: Publication[], timeoutMs: number): Promise<CollectReply> {
    const shifted = publishes.map(({ id, publishedAt, scheduledAt }) => ({
      id,
      publishedAt: publishedAt + this.offsetMs,
      scheduledAt: scheduledAt === null ? null : scheduledAt + this.offsetMs,
    }));
    return this.request<CollectReply>({ cmd: 'collect', variant, publishes: shifted, timeoutMs }, timeoutMs + 30_000);
  }

  /** Closes the raw sockets (the large scenario runs the two fleets one after the other). */
  closeRaw(): Promise<void> {
    return this.request<void>({ cmd: 'close-raw' }, 30_000);
  }

  /** Closes every socket, then lets the child end (killed if it has not within 15 s). */
  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.connected) {
      await this.request({ cmd: 'close' }, 20_000).catch(() => undefined);
      this.child.disconnect();
    }
    const code = await Promise.race([this.exited, new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 15_000).unref())]);
    if (code === 'late') {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}

/**
 * The clients share the machine's cores with the server they measure. So that they take
 * what the server leaves rather than the server's share, the child runs at a lower
 * priority: BENCH_FLEET_NICE (default 10; 0 leaves it as it is). BENCH_FLEET_CPUS (say
 * `1`) also pins it, all its threads, to those CPUs with `taskset`, where there is one.
 * Neither changes what is counted: the server's CPU is this process's, the clients' is
 * the child's own `process.cpuUsage()`, reported beside it.
 */
function place(pid: number): string {
  const notes: string[] = [];
  const nice = Number(process.env.BENCH_FLEET_NICE || 10);
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) throw new Error('BENCH_FLEET_NICE must be an integer from 0 to 19');
  if (nice !== 0) {
    try {
      os.setPriority(pid, nice);
      notes.push(`nice ${os.getPriority(pid)}`);
    } catch (error) {
      notes.push(`nice not set (${(error as Error).message})`);
    }
  }
  const cpus = process.env.BENCH_FLEET_CPUS;
  if (cpus) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
      notes.push(`pinned to CPU ${cpus}`);
    } catch (error) {
      notes.push(`not pinned (taskset: ${(error as Error).message})`);
    }
  }
  return notes.length ? notes.join(', ') : 'as the bench process';
}
