import { Migration } from '@mikro-orm/migrations';

/**
 * The shared rate-limit counters (rate-limiter-flexible's PostgreSQL store; used when
 * REDIS_URL is not set). Its own schema, outside the ORM's (src/db/orm.ts ignores it), and
 * unlogged: counters need no crash safety, and a write per request should not cost WAL.
 */
export class Migration20261201190000_rate_limits extends Migration {
  override async up(): Promise<void> {
    this.addSql('create schema if not exists rate_limits;');
    this.addSql(
      'create unlogged table if not exists rate_limits.counters (key varchar(255) primary key, points integer not null default 0, expire bigint);',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop schema if exists rate_limits cascade;');
  }
}
