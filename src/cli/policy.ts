// `toolgate policy simulate` (a draft rule set replayed over an org's recorded calls), `policy publish` (the draft put in force), `policy cedar-schema` (the Cedar schema).
import fs from 'node:fs';
import type { Command } from 'commander';
import type { Runtime } from '../app/main';
import { findOrg } from '../orgs/org.service';
import { badInput } from '../errors/app-error';
import { RISK_LEVELS } from '../catalog/risk';
import { POLICY_OUTCOMES } from '../policy/policy-decision-outcome';
import type { PolicyRuleInput } from '../policy/policy-rule.service';
import { publishPolicy } from '../policy/policy-publish.service';
import { MAX_SIMULATION_EXAMPLES, type PolicySimulation, simulatePolicy } from '../policy/policy-simulation.service';
import { cedarSchemaText, orgCedarSchema } from '../policy/cedar-policy.service';
import { UsageError } from './commands';
import { exportRange } from './ledger';
import { group, json, onDatabase } from './support';

const CONDITION_OPS = ['equals', 'in', 'lt', 'gt', 'exists'];

export function addPolicyCommands(program: Command, done: (code: number) => void): void {
  const policy = group(program, 'policy', 'policy rules');
  policy
    .command('simulate')
    .description(
      "replay an org's recorded calls of [--from, --to) against a draft rule set (JSON file, as upsertPolicyRule takes each rule); writes nothing",
    )
    .requiredOption('--org <id>', 'the org whose calls are replayed')
    .requiredOption('--from <time>', 'calls created at or after this ISO 8601 date or timestamp')
    .requiredOption('--to <time>', 'calls created before this ISO 8601 date or timestamp (at most 92 days after --from)')
    .requiredOption('--rules <file>', 'the draft: a JSON list of rules')
    .option('--first <n>', 'examples to show (0-100)', '20')
    .option('--json', 'print the whole answer as one JSON line')
    .action(async (opts: { org: string; from: string; to: string; rules: string; first: string; json?: boolean }) => {
      const range = exportRange(opts.from, opts.to);
      if (!/^\d{1,3}$/.test(opts.first) || Number(opts.first) > MAX_SIMULATION_EXAMPLES) {
        throw new UsageError(`--first must be an integer from 0 to ${MAX_SIMULATION_EXAMPLES}`);
      }
      const rules = readDraft(opts.rules);
      const simulating = async (runtime: Runtime) => {
        const em = runtime.orm.em.fork();
        const org = await findOrg(em, opts.org);
        const request = { from: new Date(range.from as string), to: new Date(range.to as string), rules, first: Number(opts.first) };
        const result = await simulatePolicy(em, org.id, request);
        if (opts.json) json(result);
        else process.stdout.write(describeSimulation(result));
      };
      done(await onDatabase(simulating, { migrate: false }));
    });
  policy
    .command('publish')
    .description("replace an org's rules with a draft (JSON file, as simulate takes it) in one policy version; --replay names a replay of that draft")
    .requiredOption('--org <id>', 'the org whose rules are replaced')
    .requiredOption('--rules <file>', 'the draft: a JSON list of rules (a rule with an id replaces that rule; saved rules not listed are deleted)')
    .option('--replay <id>', 'the replay id simulate printed for this draft (required when the org requires a replay)')
    .option('--json', 'print { policyVersion, rules } as one JSON line')
    .action(async (opts: { org: string; rules: string; replay?: string; json?: boolean }) => {
      const rules = readDraft(opts.rules);
      const publishing = async (runtime: Runtime) => {
        const em = runtime.orm.em.fork();
        const org = await findOrg(em, opts.org);
        const published = await publishPolicy(em, org.id, null, rules, opts.replay ?? null);
        if (opts.json) json({ policyVersion: published.policyVersion, rules: published.rules });
        else process.stdout.write(`Published ${published.rules.length} rule(s): policy version ${published.policyVersion}.\n`);
      };
      done(await onDatabase(publishing, { migrate: false }));
    });
  policy
    .command('cedar-schema')
    .description("print an org's generated Cedar schema (its tools, callers and params), which Cedar policies are validated against")
    .requiredOption('--org <id>', 'the org whose tools the schema declares')
    .option('--json', "print Cedar's JSON schema format instead of its own syntax")
    .action(async (opts: { org: string; json?: boolean }) => {
      const printing = async (runtime: Runtime) => {
        const em = runtime.orm.em.fork();
        const schema = await orgCedarSchema(em, (await findOrg(em, opts.org)).id);
        if (opts.json) json(schema);
        else process.stdout.write(cedarSchemaText(schema));
      };
      done(await onDatabase(printing, { migrate: false }));
    });
}

/** The file must be a JSON list of objects (else bad usage); each rule is then checked as the API checks it. */
function readDraft(file: string): PolicyRuleInput[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--rules ${file}: not a readable JSON file (${(error as Error).message})`);
  }
  if (!Array.isArray(parsed) || !parsed.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r))) {
    throw new UsageError(`--rules ${file}: must be a JSON list of rules`);
  }
  return parsed.map((r: Record<string, unknown>, i) => draftRule(r, i));
}

function draftRule(raw: Record<string, unknown>, index: number): PolicyRuleInput {
  const field = (name: string) => `rules[${index}].${name}`;
  const oneOf = (name: string, allowed: readonly string[]) => {
    if (typeof raw[name] !== 'string' || !allowed.includes(raw[name] as string)) {
      throw badInput(`${field(name)} must be one of ${allowed.join(', ')}`, { field: field(name) });
    }
    return raw[name] as never;
  };
  const conditions = raw.conditions ?? [];
  if (
    !Array.isArray(conditions) ||
    !conditions.every((c) => c && typeof c === 'object' && typeof c.path === 'string' && CONDITION_OPS.includes(c.op))
  ) {
    throw badInput(`${field('conditions')} must be a list of { path, op (${CONDITION_OPS.join(', ')}), value }`, { field: field('conditions') });
  }
  const roles = raw.roles ?? [];
  if (!Array.isArray(roles) || !roles.every((r) => typeof r === 'string'))
    throw badInput(`${field('roles')} must be a list of roles`, { field: field('roles') });
  const text = (name: string, fallback?: string) => {
    const value = raw[name] ?? fallback;
    if (typeof value !== 'string') throw badInput(`${field(name)} must be a string`, { field: field(name) });
    return value;
  };
  const optionalId = (name: string) => (raw[name] === undefined || raw[name] === null ? null : text(name));
  return {
    id: optionalId('id'),
    name: text('name'),
    position: typeof raw.position === 'number' ? raw.position : Number.NaN,
    toolPattern: text('toolPattern', '*'),
    actionPattern: text('actionPattern', '*'),
    conditions,
    // Checked field by field by validateRule, as the API checks it (history[i].kind, …).
    history: (raw.history ?? []) as PolicyRuleInput['history'],
    roles,
    specialistId: optionalId('specialistId'),
    risk: oneOf('risk', RISK_LEVELS),
    decision: oneOf('decision', POLICY_OUTCOMES),
    enabled: raw.enabled === undefined ? true : raw.enabled === true,
  };
}

function describeSimulation(result: PolicySimulation): string {
  const lines = [
    `Replay ${result.replayId} (policy version ${result.policyVersion}): publish this draft with --replay ${result.replayId}.`,
    `Replayed ${result.callsRead} recorded call(s): ${result.changedCount} decided otherwise, ${result.undecidableCount} undecidable (a condition reads a redacted value).`,
  ];
  if (result.cedarPoliciesNotReplayed > 0) {
    lines.push(`Not replayed: the org's ${result.cedarPoliciesNotReplayed} enabled Cedar policies (a call one of them decided may show as changed).`);
  }
  for (const change of result.changes) {
    const rule = change.rule ? `rule #${change.rule.index} "${change.rule.name}"` : 'catalog default';
    lines.push(`  ${change.count} × ${change.oldOutcome} → ${change.newOutcome ?? 'undecidable'} (${rule})`);
  }
  if (result.examples.length > 0) lines.push('Examples:');
  for (const e of result.examples) {
    const rule = e.rule ? `rule #${e.rule.index} "${e.rule.name}"` : 'catalog default';
    lines.push(
      `  ${e.createdAt.toISOString()} ${e.toolCallId} ${e.toolName}.${e.action}: ${e.oldOutcome} → ${e.newOutcome ?? 'undecidable'} (${rule})`,
    );
  }
  return `${lines.join('\n')}\n`;
}
