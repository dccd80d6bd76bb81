// `toolgate identity bind|show|unbind`: an org's single sign-on, as an operator sets it.
import type { Command } from 'commander';
import { findOrg } from '../orgs/org.service';
import { Issuers } from '../identity/issuers';
import { bindingOfOrg, removeIdentityBinding, setIdentityBinding } from '../identity/identity-bindings';
import type { RoleMap } from '../identity/identity-binding.entity';
import { toIdentityBindingType } from '../identity/identity.types';
import { PERSON_ROLES } from '../identity/role-mapping';
import { UsageError } from './commands';
import { group, json, onDatabase } from './support';

/** `--role expert=toolgate-experts` (repeatable): the claim values that give each role. */
function roleMapOf(pairs: string[]): RoleMap {
  const map: RoleMap = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const role = pair.slice(0, at);
    if (at < 1 || !(PERSON_ROLES as readonly string[]).includes(role) || at === pair.length - 1) {
      throw new UsageError(`--role ${pair}: write <role>=<claim value>, the role one of ${PERSON_ROLES.join(', ')}`);
    }
    const key = role as keyof RoleMap;
    map[key] = [...(map[key] ?? []), pair.slice(at + 1)];
  }
  return map;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function addIdentityCommands(program: Command, done: (code: number) => void): void {
  const identity = group(program, 'identity', "an org's single sign-on (README, Identity)");
  identity
    .command('bind')
    .description('bind an org to an issuer of OIDC_ISSUERS and map claim values (groups) to roles; replaces its binding')
    .requiredOption('--org <id>', 'the org')
    .requiredOption('--issuer <name>', 'the issuer, by its name in OIDC_ISSUERS')
    .option('--tenant-claim <claim>', "with --tenant: the claim that tells this org's people apart on a shared issuer (e.g. tid, hd)")
    .option('--tenant <value>', "the tenant claim's value for this org")
    .option('--role-claim <claim>', 'the claim whose values give roles', 'groups')
    .option('--role <role=value>', 'a claim value that gives a role, e.g. expert=toolgate-experts (repeatable)', collect, [])
    .option('--agent-scope <scope>', 'an OAuth access token with this scope acts as an agent of the org at /mcp')
    .option('--no-record-names', "the ledger records people's issuer and subject, not their names")
    .option('--json', 'print the binding as one JSON line')
    .action(
      async (opts: {
        org: string;
        issuer: string;
        tenantClaim?: string;
        tenant?: string;
        roleClaim: string;
        role: string[];
        agentScope?: string;
        recordNames: boolean;
        json?: boolean;
      }) => {
        const roleMap = roleMapOf(opts.role);
        done(
          await onDatabase(async (runtime, _logger, config) => {
            const em = runtime.orm.em.fork();
            const org = await findOrg(em, opts.org);
            const issuers = new Issuers(config.identity.issuers, config.nodeEnv === 'production');
            const binding = await setIdentityBinding(em, issuers, org.id, null, {
              issuerName: opts.issuer,
              tenantClaim: opts.tenantClaim ?? null,
              tenantValue: opts.tenant ?? null,
              roleClaim: opts.roleClaim,
              roleMap,
              agentScope: opts.agentScope ?? null,
              recordNames: opts.recordNames,
            });
            const shown = toIdentityBindingType(binding, issuers.byName(binding.issuerName)?.issuer ?? null);
            if (opts.json) json(shown);
            else process.stdout.write(describe(org.id, shown));
          }),
        );
      },
    );
  identity
    .command('show')
    .description("an org's single sign-on")
    .requiredOption('--org <id>', 'the org')
    .option('--json', 'print the binding as one JSON line (null: none)')
    .action(async (opts: { org: string; json?: boolean }) => {
      done(
        await onDatabase(
          async (runtime, _logger, config) => {
            const em = runtime.orm.em.fork();
            const org = await findOrg(em, opts.org);
            const binding = await bindingOfOrg(em, org.id);
            const issuer = binding ? (config.identity.issuers.find((i) => i.name === binding.issuerName)?.issuer ?? null) : null;
            const shown = binding ? toIdentityBindingType(binding, issuer) : null;
            if (opts.json) json(shown);
            else process.stdout.write(shown ? describe(org.id, shown) : `org ${org.id}: no single sign-on (API keys only)\n`);
          },
          { migrate: false },
        ),
      );
    });
  identity
    .command('unbind')
    .description("remove an org's single sign-on")
    .requiredOption('--org <id>', 'the org')
    .action(async (opts: { org: string }) => {
      done(
        await onDatabase(async (runtime) => {
          const em = runtime.orm.em.fork();
          const org = await findOrg(em, opts.org);
          const removed = await removeIdentityBinding(em, org.id, null);
          process.stdout.write(removed ? `org ${org.id}: single sign-on removed\n` : `org ${org.id}: had no single sign-on\n`);
        }),
      );
    });
}

function describe(orgId: string, b: ReturnType<typeof toIdentityBindingType>): string {
  const roles = PERSON_ROLES.map((role) => `  ${role}: ${b[role].length ? b[role].join(', ') : '(nobody)'}`).join('\n');
  return [
    `org ${orgId}: people sign in with ${b.issuerName}${b.issuer ? ` (${b.issuer})` : ' (not in OIDC_ISSUERS on this machine)'}`,
    b.tenantClaim ? `  tenant: ${b.tenantClaim} = ${b.tenantValue}` : '  tenant: any (the issuer is this org alone)',
    `  roles from the claim ${b.roleClaim}:`,
    roles,
    `  agents at /mcp: ${b.agentScope ? `OAuth tokens with the scope ${b.agentScope}` : 'API keys only'}`,
    `  the ledger records ${b.recordNames ? "people's names" : 'issuer and subject only'}`,
    '',
  ].join('\n');
}
