import { Migration } from '@mikro-orm/migrations';

export class Migration20261129233633_runtime extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "approval_requests" drop constraint if exists "approval_requests_status_check";`);

    this.addSql(
      `alter table "approval_requests" add constraint "approval_requests_status_check" check("status" in ('pending', 'approved', 'rejected', 'expired', 'cancelled'));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "approval_requests" drop constraint if exists "approval_requests_status_check";`);

    this.addSql(
      `alter table "approval_requests" add constraint "approval_requests_status_check" check("status" in ('pending', 'approved', 'rejected', 'expired'));`,
    );
  }
}
