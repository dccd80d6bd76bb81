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

@ObjectType('McpToolDrift', { description: 'An imported tool whose upstream text differs from the text pinned when it was enabled' })
export class McpToolDriftType {
  @Field({ description: 'Its catalog name, `mcp.<server>.<tool>`' })
  tool!: string;

  @Field(() => [String], { description: 'What differs: `title`, `description`, `inputSchema`' })
  fields!: string[];

  @Field({ description: 'sha256 of the pinned text (canonical JSON of title, description and input schema)' })
  pinnedHash!: string;

  @Field({ description: 'When an admin last enabled it' })
  pinnedAt!: Date;
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

  @Field(() => [McpToolDriftType], {
    description: 'Its tools whose text upstream (description, title, input schema) differs from what an admin enabled: off until enabled again',
  })
  drift!: McpToolDriftType[];

  @Field()
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  lastImportedAt!: Date | null;
}

@ObjectType('McpSkippedTool')
export class McpSkippedToolType {
  @Field({ description: "The tool's name upstream" })
  name!: string;

  @Field({ description: '`invalid_name`, `name_too_long` (its model tool name would pass 64 characters), `duplicate_name` or `invalid_schema`' })
  reason!: string;
}

@ObjectType('McpToolDriftFound')
export class McpToolDriftFoundType {
  @Field()
  tool!: string;

  @Field(() => [String], { description: '`title`, `description`, `inputSchema`' })
  fields!: string[];
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

  @Field(() => [String], { description: 'Their description or title changed: updated, their permission turned off' })
  descriptionChanged!: string[];

  @Field(() => [String])
  unchanged!: string[];

  @Field(() => [McpToolDriftFoundType], { description: 'Enabled before, now changed against their pinned text (the `mcp_tool.drifted` event)' })
  drifted!: McpToolDriftFoundType[];

  @Field(() => [McpSkippedToolType])
  skipped!: McpSkippedToolType[];
}

export const toMcpServerType = ({ server, hasCredential, tools, drift }: UpstreamServerListing): McpServerType => ({
  id: server.id,
  name: server.name,
  url: server.url,
  transport: server.transport,
  defaultRisk: server.defaultRisk,
  defaultIdempotent: server.defaultIdempotent,
  defaultCostCents: server.defaultCostCents,
  hasCredential,
  tools,
  drift,
  createdAt: server.createdAt,
  lastImportedAt: server.lastImportedAt,
});

export const toImportResultType = (diff: ImportDiff, server: UpstreamServerListing): McpImportResultType => ({
  server: toMcpServerType(server),
  added: diff.added,
  removed: diff.removed,
  schemaChanged: diff.schemaChanged,
  descriptionChanged: diff.descriptionChanged,
  unchanged: diff.unchanged,
  skipped: diff.skipped,
  drifted: diff.drifted,
});
