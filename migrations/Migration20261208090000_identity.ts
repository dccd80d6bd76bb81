import { Migration } from '@mikro-orm/migrations';

/**
 * People, not keys (issue 32). An org is bound to one OpenID Connect issuer
 * (`identity_bindings`: the issuer's name in OIDC_ISSUERS, an optional tenant claim, which
 * group gives which role). A person seen through it is a row of `people`; a person acts
 * through a principal, one `api_keys` row per person, role and OAuth client that holds no
 * secret (`person_id` set), so that ownership, rate limits, revocation and every
 * `resolved_by` keep working by key id. A console sign-in is a `person_sessions` row (the
 * cookie's hash and the CSRF token's); a sign-in under way is an `oidc_logins` row.
 */
export class Migration20261208090000_identity extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "identity_bindings" (
      "org_id" uuid not null primary key,
      "issuer_name" text not null,
      "tenant_claim" text null,
      "tenant_value" text null,
      "role_claim" text not null default 'groups',
      "role_map" jsonb not null default '{}',
      "agent_scope" text null,
      "record_names" boolean not null default true,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      constraint "identity_bindings_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade on delete cascade,
      constraint "identity_bindings_tenant_pair" check (("tenant_claim" is null) = ("tenant_value" is null))
    );`);
    // One org per issuer and tenant: a sign-in never has two orgs to choose from.
    this.addSql(
      `create unique index "identity_bindings_issuer_tenant" on "identity_bindings" ("issuer_name", coalesce("tenant_claim", ''), coalesce("tenant_value", ''));`,
    );
    this.addSql(`create table "people" (
      "id" uuid not null primary key,
      "org_id" uuid not null,
      "issuer" text not null,
      "subject" text not null,
      "display_name" text null,
      "email" text null,
      "created_at" timestamptz not null default now(),
      "last_seen_at" timestamptz not null default now(),
      constraint "people_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade on delete cascade,
      constraint "people_org_issuer_subject" unique ("org_id", "issuer", "subject")
    );`);
    this.addSql('alter table "api_keys" add column "person_id" uuid null, add column "oauth_client" text null;');
    // No foreign key to people: both go with their org, and auth/ stays below identity/.
    this.addSql(
      `create unique index "api_keys_person_principal" on "api_keys" ("org_id", "person_id", "role", coalesce("oauth_client", '')) where "person_id" is not null;`,
    );
    this.addSql(`create table "person_sessions" (
      "id" uuid not null primary key,
      "token_hash" text not null,
      "csrf_hash" text not null,
      "org_id" uuid not null,
      "principal_id" uuid not null,
      "person_id" uuid not null,
      "issuer_name" text not null,
      "id_token" text null,
      "groups" jsonb not null default '[]',
      "created_at" timestamptz not null default now(),
      "expires_at" timestamptz not null,
      "ended_at" timestamptz null,
      constraint "person_sessions_token_hash_unique" unique ("token_hash"),
      constraint "person_sessions_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade on delete cascade,
      constraint "person_sessions_principal_id_foreign" foreign key ("principal_id") references "api_keys" ("id") on update cascade on delete cascade,
      constraint "person_sessions_person_id_foreign" foreign key ("person_id") references "people" ("id") on update cascade on delete cascade
    );`);
    this.addSql('create index "person_sessions_principal" on "person_sessions" ("principal_id");');
    this.addSql(`create table "oidc_logins" (
      "state" text not null primary key,
      "browser_hash" text not null,
      "org_id" uuid not null,
      "issuer_name" text not null,
      "code_verifier" text not null,
      "nonce" text not null,
      "role" text null,
      "return_to" text not null,
      "expires_at" timestamptz not null,
      constraint "oidc_logins_org_id_foreign" foreign key ("org_id") references "orgs" ("id") on update cascade on delete cascade
    );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "oidc_logins";');
    this.addSql('drop table if exists "person_sessions";');
    this.addSql('drop index if exists "api_keys_person_principal";');
    this.addSql('alter table "api_keys" drop column "person_id", drop column "oauth_client";');
    this.addSql('drop table if exists "people";');
    this.addSql('drop table if exists "identity_bindings";');
  }
}
