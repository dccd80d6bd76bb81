import { Migration } from '@mikro-orm/migrations';

export class Migration20261129230515_gateway extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "orgs" add column "config_version" int not null default 1;`);

    this.addSql(`alter table "agent_runs" add constraint "agent_runs_driver_check" check("driver" in ('internal', 'external'));`);

    this.addSql(`alter table "approval_requests" add column "sealed_params" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "agent_runs" drop constraint if exists "agent_runs_driver_check";`);

    this.addSql(`alter table "agent_runs" alter column "driver" type text using ("driver"::text);`);

    this.addSql(`alter table "approval_requests" drop column "sealed_params";`);

    this.addSql(`alter table "orgs" drop column "config_version";`);
  }
}
