import { Migration } from '@mikro-orm/migrations';

/**
 * Rules over history (issue 33, item 1): a rule's conditions over earlier calls, and the
 * function the gateway answers them with in one statement. policy_history() takes the
 * limits' advisory locks first and then runs the read (built by src/policy/policy-history.ts,
 * its arguments as one text[]) with a snapshot taken after them: a volatile function's
 * statements each take a fresh one under READ COMMITTED, so a decision that waited for
 * another one of the same limit sees that one's call once it is committed. It runs as its
 * caller (security invoker): only what the application's role may run anyway; the query is
 * built from validated rule fields, every value passed in `args`.
 */
export class Migration20261208091000_policy_history extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "policy_rules" add column "history" jsonb not null default '[]';`);
    this.addSql(`create function policy_history(lock_keys bigint[], query text, args text[]) returns jsonb
      language plpgsql volatile as $$
      declare
        lock_key bigint;
        result jsonb;
      begin
        foreach lock_key in array coalesce(lock_keys, '{}') loop
          perform pg_advisory_xact_lock(lock_key);
        end loop;
        execute query into result using args;
        return result;
      end
      $$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function policy_history(bigint[], text, text[]);');
    this.addSql('alter table "policy_rules" drop column "history";');
  }
}
