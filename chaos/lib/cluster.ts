import fs from 'node:fs';
import path from 'node:path';
import { SandboxControl } from './clients';
import type { DatabaseServer, ScenarioDatabase } from './database';
import { freePort, runCli, sleep, spawnCli, type Child } from './processes';

/**
 * One scenario's world, all real processes: an empty database of its own, the vendor
 * sandboxes in their own process (`toolgate sandboxes`, so vendor state outlives any
 * node), the demo org seeded with `toolgate seed --json`, and Toolgate nodes started with
 * `toolgate start` — restarted under the same TOOLGATE_NODE_NAME after a kill.
 */
export const MASTER_KEY_HEX = '5a'.repeat(32);

export interface SeedKeys {
  orgId: string;
  specialistId: string;
  keys: { admin: string; expert: string; client: string; partner: string; agent: string };
}

export interface Node {
  name: string;
  /** 1 for the first start under this name, 2 after the first restart, … */
  incarnation: number;
  port: number;
  /** http://127.0.0.1:<port>/graphql */
  url: string;
  failpoints: string | null;
  child: Child;
}

export interface ClusterSettings {
  logDir: string;
  logLevel: string;
  heartbeatMs: number;
  deadAfterMs: number;
  /** Extra environment for every node (e.g. WORKER_CONCURRENCY). */
  nodeEnv: Record<string, string>;
}

/** process.env without what would change how a node runs (a real model, Redis, failpoints). */
function baseEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      /^(ANTHROPIC_|TOOLGATE_|NODE_HEARTBEAT|NODE_DEAD|VENDOR_|REDIS_URL|EVENT_BUS|MASTER_ENCRYPTION|PORT$|HOST$|LOG_LEVEL|WORKER_CONCURRENCY|RATE_LIMIT_|GRAPHQL_)/.test(
        name,
      ) ||
      /^(SHOPIFY|AMAZON|JUMIO|NANGO)_[A-Z0-9_]*URL$/.test(name)
    ) {
      delete env[name];
    }
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export class Cluster {
  readonly nodes = new Map<string, Node>();
  /** When the last node was (re)started: the 60-second clock of "every run terminal" starts there. */
  lastStartAt = 0;
  private incarnations = new Map<string, number>();

  private constructor(
    readonly scenario: string,
    readonly db: ScenarioDatabase,
    readonly sandbox: Child,
    readonly control: SandboxControl,
    readonly seed: SeedKeys,
    readonly settings: ClusterSettings,
    readonly logDir: string,
  ) {}

  static async create(scenario: string, server: DatabaseServer, settings: ClusterSettings): Promise<Cluster> {
    const logDir = path.join(settings.logDir, scenario);
    fs.mkdirSync(logDir, { recursive: true });
    const db = await server.createDatabase();
    let sandbox: Child | null = null;
    try {
      // Port 0: the system picks a free port and the sandboxes announce it (a port chosen
      // here first could be taken by another process before they bind it).
      sandbox = spawnCli('sandboxes', ['sandboxes', '--port', '0'], baseEnv({ NODE_ENV: 'production' }), path.join(logDir, 'sandboxes.log'));
      const started = sandbox;
      await waitUntil(`the sandboxes of ${scenario} to announce their URL`, () => started.stdout().includes('VENDOR_SANDBOX_URL='), 20_000, started);
      const announced = /VENDOR_SANDBOX_URL=(http:\/\/[^\s)]+)/.exec(started.stdout());
      if (!announced) throw new Error(`the sandboxes of ${scenario} announced no URL`);
      const control = new SandboxControl(new URL(announced[1]).origin);
      await control.reset();
      const seeded = await runCli('seed', ['seed', '--json'], cliEnv(db.url), path.join(logDir, 'seed.log'), 60_000);
      if (seeded.code !== 0) throw new Error(`toolgate seed exited ${seeded.code}; log: ${path.join(logDir, 'seed.log')}`);
      const seed = JSON.parse(seeded.stdout.trim().split('\n').pop()!) as SeedKeys;
      return new Cluster(scenario, db, started, control, seed, settings, logDir);
    } catch (error) {
      await sandbox?.kill();
      await db.drop().catch(() => undefined);
      throw error;
    }
  }

  nodeEnvFor(name: string, port: number, failpoints: string | null, extraEnv: Record<string, string> = {}): NodeJS.ProcessEnv {
    return baseEnv({
      ...cliEnvVars(this.db.url),
      PORT: String(port),
      HOST: '127.0.0.1',
      VENDOR_SANDBOX_URL: this.control.url,
      TOOLGATE_VENDOR_SANDBOXES: 'false',
      TOOLGATE_SEED_ON_START: 'false',
      // Production nodes, each serving the offline model in-process (no real model here).
      TOOLGATE_OFFLINE_MODEL: 'true',
      NODE_HEARTBEAT_MS: String(this.settings.heartbeatMs),
      NODE_DEAD_AFTER_MS: String(this.settings.deadAfterMs),
      TOOLGATE_NODE_NAME: name,
      EVENT_BUS: 'postgres',
      LOG_LEVEL: this.settings.logLevel,
      TOOLGATE_FAILPOINTS: failpoints ?? undefined,
      ...this.settings.nodeEnv,
      ...extraEnv,
    });
  }

  /**
   * Starts (or restarts, under the same name) a node and waits for /readyz. With failpoints
   * the node may kill itself before it is ready (its recovery of earlier work reaches the
   * failpoint): then the node is returned dead.
   */
  async startNode(name: string, failpoints: string | null = null, extraEnv: Record<string, string> = {}): Promise<Node> {
    const previous = this.nodes.get(name);
    if (previous?.child.alive()) throw new Error(`${name} is still running`);
    // A free port found here can be taken by another process before the node binds it: the
    // node then exits with PORT_IN_USE and starts again on another port (same incarnation).
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.spawnNode(name, failpoints, extraEnv);
      } catch (error) {
        const node = this.nodes.get(name);
        const portTaken = node && !node.child.alive() && fs.readFileSync(node.child.logFile, 'utf8').includes('PORT_IN_USE');
        if (!portTaken || attempt === 3) throw error;
        this.incarnations.set(name, (this.incarnations.get(name) ?? 1) - 1);
      }
    }
  }

  private async spawnNode(name: string, failpoints: string | null, extraEnv: Record<string, string>): Promise<Node> {
    const incarnation = (this.incarnations.get(name) ?? 0) + 1;
    this.incarnations.set(name, incarnation);
    const port = await freePort();
    const logFile = path.join(this.logDir, `${name}.${incarnation}.log`);
    this.lastStartAt = Date.now();
    const child = spawnCli(`${this.scenario}/${name}#${incarnation}`, ['start'], this.nodeEnvFor(name, port, failpoints, extraEnv), logFile);
    const node: Node = { name, incarnation, port, url: `http://127.0.0.1:${port}/graphql`, failpoints, child };
    this.nodes.set(name, node);
    try {
      await waitUntil(
        `${name} #${incarnation} to be ready`,
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) });
          return response.ok;
        },
        45_000,
        child,
      );
    } catch (error) {
      if (failpoints && !child.alive() && (await child.exited).signal === 'SIGKILL') return node;
      throw error;
    }
    return node;
  }

  /** `toolgate ledger verify --json` on the scenario database: one result per org. */
  async ledgerVerify(): Promise<{ ok: boolean; orgs: { ok: boolean; eventsChecked?: number; problem?: string }[]; exitCode: number | null }> {
    const result = await runCli(
      'ledger-verify',
      ['ledger', 'verify', '--json'],
      cliEnv(this.db.url),
      path.join(this.logDir, 'ledger-verify.log'),
      60_000,
    );
    const orgs = result.stdout
      .split('\n')
      .filter((line) => line.trim().startsWith('{'))
      .map((line) => JSON.parse(line) as { ok: boolean; eventsChecked?: number; problem?: string });
    return { ok: result.code === 0 && orgs.length > 0 && orgs.every((o) => o.ok), orgs, exitCode: result.code };
  }

  /** Kills every process of the scenario and drops its database (unless `keepDatabase` and it can be kept). */
  async dispose(keepDatabase = false): Promise<boolean> {
    await Promise.all([...this.nodes.values()].map((node) => node.child.kill()));
    await this.sandbox.kill();
    if (keepDatabase && this.db.keep()) return true;
    await this.db.drop();
    return false;
  }
}

function cliEnvVars(databaseUrl: string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, MASTER_ENCRYPTION_KEY: MASTER_KEY_HEX, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
}

function cliEnv(databaseUrl: string): NodeJS.ProcessEnv {
  return baseEnv(cliEnvVars(databaseUrl));
}

/** Polls until `probe` is true; fails early (with the log's tail) when `child` exits. */
async function waitUntil(what: string, probe: () => boolean | Promise<boolean>, timeoutMs: number, child: Child): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.resolve(probe()).catch(() => false)) return;
    if (!child.alive()) throw new Error(`${child.name} exited while waiting for ${what}; log ${child.logFile}:\n${tail(child.logFile)}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; log ${child.logFile}:\n${tail(child.logFile)}`);
    await sleep(100);
  }
}

export function tail(file: string, lines = 12): string {
  try {
    return fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .map((line) => (line.length > 400 ? `${line.slice(0, 400)}…` : line))
      .join('\n');
  } catch {
    return '(no log)';
  }
}
