import { Migration } from '@mikro-orm/migrations';

/** An upstream MCP server's default cost per call of its imported tools (cents). */
export class Migration20261201191500_upstream_cost extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "upstream_mcp_servers" add column "default_cost_cents" int not null default 0;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "upstream_mcp_servers" drop column "default_cost_cents";');
  }
}
