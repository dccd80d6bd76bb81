import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { RiskLevelEnum } from '../catalog/catalog.types';
import type { RiskLevel } from '../catalog/risk';
import { graphqlEnum } from '../graphql/enums';
import { UPSTREAM_TRANSPORTS, type UpstreamTransport } from './upstream-server.entity';
import type { UpstreamServerListing } from './upstream.service';
import type { ImportDiff } from './upstream-import';

export const McpTransportEnum = graphqlEnum(UPSTREAM_TRANSPORTS, 'McpTransport', 'How Toolgate reaches an upstream MCP server');

@InputType()
export class RegisterMcpServerInput {
  @Field({ description: 'A safe identifier, unique in the org: its tools are named `mcp.<name>.<tool>`' })
  name!: string;

  @Field({ description: 'The http(s) URL of its MCP endpoint' })
  url!: string;

  @Field(() => McpTransportEnum, { defaultValue: 'streamable_http' })
  transport: UpstreamTransport = 'streamable_http';

  @Field(() => String, { nullable: true, description: 'Sent as `Authorization: Bearer …`; stored in the credential vault as `mcp_<name>`' })
  bearerToken?: string | null;

  @Field(() => RiskLevelEnum, { description: 'The default risk of its imported tools' })
  defaultRisk!: RiskLevel;

  @Field({ description: 'Whether its imported tools may be retried (and re-run after a crash)' })
  defaultIdempotent!: boolean;

  @Field(() => Int, { defaultValue: 0, description: "What a call of each imported tool costs, in cents (0-100000), as a catalog tool's costCents" })
  defaultCostCents = 0;
}

@ObjectType('McpServer', { description: 'An upstream MCP server of the org' })
export class McpServerType {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field()
  url!: string;

  @Field(() => McpTransportEnum)
  transport!: UpstreamTransport;

  @Field(() => RiskLevelEnum)
  defaultRisk!: RiskLevel;

  @Field()
  defaultIdempotent!: boolean;

  @Field(() => Int)
  defaultCostCents!: number;

  @Field({ description: 'A bearer token is stored for it (never readable back)' })
  hasCredential!: boolean;

  @Field(() => [String], { description: 'Catalog names of its imported tools still offered upstream' })
  tools!: string[];

  @Field()
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  lastImportedAt!: Date | null;
}

@ObjectType('McpSkippedTool')
export class McpSkippedToolType {
  @Field({ description: "The tool's name upstream" })
  name!: string;

  @Field({ description: '`invalid_name`, `duplicate_name` or `invalid_schema`' })
  reason!: string;
}

@ObjectType('McpImportResult', { description: 'What an import of an upstream server changed in the catalog' })
export class McpImportResultType {
  @Field(() => McpServerType)
  server!: McpServerType;

  @Field(() => [String], { description: 'New (or back) in the catalog, disabled until an admin enables them' })
  added!: string[];

  @Field(() => [String], { description: 'Gone upstream: marked removed, their permission turned off' })
  removed!: string[];

  @Field(() => [String], { description: 'Their input schema changed: updated, their permission turned off' })
  schemaChanged!: string[];

  @Field(() => [String])
  unchanged!: string[];

  @Field(() => [McpSkippedToolType])
  skipped!: McpSkippedToolType[];
}

export const toMcpServerType = ({ server, hasCredential, tools }: UpstreamServerListing): McpServerType => ({
  id: server.id,
  name: server.name,
  url: server.url,
  transport: server.transport,
  defaultRisk: server.defaultRisk,
  defaultIdempotent: server.defaultIdempotent,
  defaultCostCents: server.defaultCostCents,
  hasCredential,
  tools,
  createdAt: server.createdAt,
  lastImportedAt: server.lastImportedAt,
});

export const toImportResultType = (diff: ImportDiff, server: UpstreamServerListing): McpImportResultType => ({
  server: toMcpServerType(server),
  added: diff.added,
  removed: diff.removed,
  schemaChanged: diff.schemaChanged,
  unchanged: diff.unchanged,
  skipped: diff.skipped,
});
