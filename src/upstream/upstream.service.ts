import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, badInput, notFound } from '../errors/app-error';
import type { Caller } from '../auth/caller';
import type { MasterKeyring } from '../credentials/keyring';
import { putIntegrationCredential } from '../credentials/credential.service';
import { IntegrationCredential } from '../credentials/integration-credential.entity';
import { ToolDefinition } from '../catalog/tool-definition.entity';
import type { RiskLevel } from '../catalog/risk';
import { toolKey } from '../catalog/tool-key';
import { appendLedgerEvent } from '../ledger/ledger.service';
import { isUuid } from '../db/ids';
import { upstreamCredentialType } from './mcp-upstream';
import { UpstreamMcpServer, type UpstreamTransport } from './upstream-server.entity';
import type { Egress } from '../egress/egress';
import { driftOf } from './upstream-pin';

export interface RegisterUpstreamInput {
  name: string;
  url: string;
  transport: UpstreamTransport;
  bearerToken?: string | null;
  defaultRisk: RiskLevel;
  defaultIdempotent: boolean;
  defaultCostCents?: number;
}

/** Lowercase words joined by single underscores: safe in a tool name, a model tool name and a vault type. */
const SERVER_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const MAX_NAME = 32;
const MAX_URL = 2048;
const MAX_TOKEN = 4096;
const MAX_COST_CENTS = 100_000;

/**
 * Registers an upstream MCP server for the caller's org; its bearer token (if any) goes to
 * the credential vault as `mcp_<name>`. Nothing is imported yet: `importUpstreamTools` does.
 * Bad input, a URL outside the egress policy (EGRESS_REFUSED) and a name the org already
 * uses are refused before anything is written.
 */
export async function registerUpstreamServer(
  em: EntityManager,
  keyring: MasterKeyring,
  egress: Egress,
  caller: Caller,
  input: RegisterUpstreamInput,
): Promise<UpstreamMcpServer> {
  if (input.name.length > MAX_NAME || !SERVER_NAME.test(input.name)) {
    throw badInput(`name must be 1-${MAX_NAME} lowercase letters and digits, words joined by single "_"`, { field: 'name' });
  }
  const url = parseServerUrl(input.url);
  const costCents = input.defaultCostCents ?? 0;
  if (!Number.isInteger(costCents) || costCents < 0 || costCents > MAX_COST_CENTS) {
    throw badInput(`defaultCostCents must be a whole number of cents from 0 to ${MAX_COST_CENTS}`, { field: 'defaultCostCents' });
  }
  const token = input.bearerToken ?? null;
  if (token !== null && (token.trim() === '' || token.length > MAX_TOKEN || /[\s]/.test(token))) {
    throw badInput(`bearerToken must be 1-${MAX_TOKEN} characters without spaces`, { field: 'bearerToken' });
  }
  await egress.check(url);
  try {
    return await em.transactional(async (tx) => {
      if (await tx.findOne(UpstreamMcpServer, { orgId: caller.orgId, name: input.name })) throw nameTaken(input.name);
      const server = tx.create(UpstreamMcpServer, {
        orgId: caller.orgId,
        name: input.name,
        url,
        transport: input.transport,
        defaultRisk: input.defaultRisk,
        defaultIdempotent: input.defaultIdempotent,
        defaultCostCents: costCents,
      });
      await tx.flush();
      if (token !== null) await putIntegrationCredential(tx, keyring, caller, upstreamCredentialType(input.name), { bearerToken: token });
      await appendLedgerEvent(tx, {
        orgId: caller.orgId,
        type: 'mcp_server.registered',
        resourceId: server.id,
        actor: caller,
        // The origin only: a path or query may carry a secret, and the ledger keeps everything forever.
        metadata: {
          name: server.name,
          origin: new URL(url).origin,
          transport: server.transport,
          defaultRisk: server.defaultRisk,
          defaultIdempotent: server.defaultIdempotent,
          defaultCostCents: server.defaultCostCents,
          bearerToken: token !== null,
        },
      });
      return server;
    });
  } catch (error) {
    // Two registrations of one name raced: the loser is told as if it had come second.
    if (error instanceof UniqueConstraintViolationException) throw nameTaken(input.name);
    throw error;
  }
}

const nameTaken = (name: string) => new AppError('MCP_SERVER_NAME_TAKEN', `This org already has an MCP server named ${name}`, { field: 'name' });

/** An http(s) URL without user info (a secret belongs in the vault, not in a URL that is listed back). */
function parseServerUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badInput('url must be an absolute http(s) URL', { field: 'url' });
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || value.length > MAX_URL) {
    throw badInput(`url must be an http(s) URL of at most ${MAX_URL} characters`, { field: 'url' });
  }
  if (url.username || url.password) throw badInput('url must not carry credentials; pass bearerToken', { field: 'url' });
  return url.toString();
}

export async function findUpstreamServer(em: EntityManager, orgId: string, id: string): Promise<UpstreamMcpServer> {
  const server = isUuid(id) ? await em.findOne(UpstreamMcpServer, { id, orgId }) : null;
  if (!server) throw notFound('MCP server');
  return server;
}

export interface UpstreamServerListing {
  server: UpstreamMcpServer;
  hasCredential: boolean;
  /** Catalog names of its imported tools still offered upstream. */
  tools: string[];
  /** Its tools whose text upstream now differs from what an admin enabled (pinned), and which fields. */
  drift: ToolDrift[];
}

export interface ToolDrift {
  tool: string;
  fields: string[];
  pinnedHash: string;
  pinnedAt: Date;
}

/** The org's upstream servers by name, with what the API shows of each. */
export async function listUpstreamServers(em: EntityManager, orgId: string, only?: UpstreamMcpServer[]): Promise<UpstreamServerListing[]> {
  const servers = only ?? (await em.find(UpstreamMcpServer, { orgId }, { orderBy: { name: 'asc' } }));
  if (servers.length === 0) return [];
  const [credentials, tools] = await Promise.all([
    em.find(IntegrationCredential, { orgId, integrationType: { $in: servers.map((s) => upstreamCredentialType(s.name)) } }),
    em.find(ToolDefinition, { orgId, removedAt: null, upstreamServerId: { $in: servers.map((s) => s.id) } }, { orderBy: { action: 'asc' } }),
  ]);
  const stored = new Set(credentials.map((c) => c.integrationType));
  return servers.map((server) => {
    const own = tools.filter((t) => t.upstreamServerId === server.id);
    return {
      server,
      hasCredential: stored.has(upstreamCredentialType(server.name)),
      tools: own.map((t) => toolKey(t.toolName, t.action)),
      drift: own.flatMap((t) => {
        const fields = driftOf(t);
        return fields.length === 0 ? [] : [{ tool: toolKey(t.toolName, t.action), fields, pinnedHash: t.pinnedHash!, pinnedAt: t.pinnedAt! }];
      }),
    };
  });
}
