// `toolgate dev-idp`: the development identity provider in its own process, and how to point Toolgate at it.
import type { Command } from 'commander';
import { type DevIdp, startDevIdp, toolgateResources } from '../identity/dev-idp';
import { UsageError } from './commands';
import { portNumber } from './support';

const DEFAULT_DEV_IDP_PORT = 4011;

interface DevIdpFlags {
  port: number;
  host: string;
  toolgateUrl?: string;
  clientSecret?: string;
}

export function addDevIdpCommand(program: Command): void {
  program
    .command('dev-idp')
    .description('serve a development OpenID Connect issuer with demo people, for trying single sign-on (never in production)')
    .option('--port <n>', 'port', portNumber, DEFAULT_DEV_IDP_PORT)
    .option('--host <host>', 'address', '127.0.0.1')
    .option('--toolgate-url <url>', "Toolgate's PUBLIC_URL (default: PUBLIC_URL, else http://localhost:<PORT or 4000>)")
    .option('--client-secret <secret>', "the console client's secret (default: DEV_IDP_CLIENT_SECRET, else a new random one)")
    .action(async (flags: DevIdpFlags) => {
      const toolgateUrl = httpUrl(flags.toolgateUrl ?? defaultToolgateUrl());
      // Read from the environment directly: these are the command's defaults, not Toolgate settings.
      const clientSecret = flags.clientSecret ?? (process.env.DEV_IDP_CLIENT_SECRET || undefined);
      const idp = await startDevIdp({ toolgateUrl, port: flags.port, host: flags.host, clientSecret });
      process.stdout.write(describeDevIdp(idp, toolgateUrl, clientSecret === undefined));
      await new Promise<void>((resolve) => {
        process.once('SIGTERM', resolve);
        process.once('SIGINT', resolve);
      });
      await idp.close();
    });
}

function defaultToolgateUrl(): string {
  return process.env.PUBLIC_URL || `http://localhost:${process.env.PORT || 4000}`;
}

function httpUrl(value: string): string {
  const url = URL.parse(value);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new UsageError(`--toolgate-url must be an http(s) URL, not "${value}"`);
  return value.replace(/\/+$/, '');
}

/** The how-to printed at start: who signs in, and the two steps that point Toolgate at this issuer. */
function describeDevIdp(idp: DevIdp, toolgateUrl: string, randomSecret: boolean): string {
  const issuers = JSON.stringify([{ name: 'dev', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret }]);
  const width = (pick: (p: DevIdp['people'][number]) => string) => Math.max(...idp.people.map((p) => pick(p).length));
  const [login, name, groups] = [width((p) => p.login), width((p) => p.name), width((p) => p.groups.join(','))];
  const people = idp.people.map((p) => `  ${p.login.padEnd(login)}  ${p.name.padEnd(name)}  ${p.groups.join(',').padEnd(groups)}  ${p.tenant}`);
  const mcp = Object.entries(toolgateResources(toolgateUrl))[0];
  return [
    `Development identity provider (OpenID Connect) at ${idp.issuer}`,
    '',
    'People (any password):',
    ...people,
    '',
    `1. Start Toolgate (PUBLIC_URL=${toolgateUrl}) with:`,
    `   OIDC_ISSUERS='${issuers}'`,
    randomSecret ? '   (the secret is new at every start; --client-secret or DEV_IDP_CLIENT_SECRET keeps it)' : null,
    '2. Bind an org to this issuer:',
    '   toolgate identity bind --org <org> --issuer dev --tenant-claim tenant --tenant acme --role admin=toolgate-admins --role expert=toolgate-experts --role client=toolgate-clients --agent-scope toolgate:agent',
    `3. Sign in at ${toolgateUrl}/console/ as ada (admin), grace (expert) or claude (client).`,
    '',
    `MCP clients register themselves at ${idp.issuer}/reg and get a JWT for resource=${mcp[0]} (scope ${mcp[1]}).`,
    'Sessions and registered clients live in memory: they end with this process (Ctrl-C).',
    '',
  ]
    .filter((line) => line !== null)
    .join('\n');
}
