import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program';

/**
 * The README's command table and the CLI agree: every command (`keys create`, …) has one
 * row, every row is a command, and each row names exactly the command's options, so what
 * `--help` prints and what the README says cannot drift apart.
 */
const README = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
const table = README.slice(README.indexOf('| command | does |'), README.indexOf('## Configuration'));

function leaves(command: Command, prefix: string[] = []): { path: string; flags: string[] }[] {
  if (command.commands.length === 0) {
    const flags = command.options.map((o) => o.long).filter((f): f is string => Boolean(f) && f !== '--help');
    return [{ path: prefix.join(' '), flags: flags.sort() }];
  }
  return command.commands.flatMap((sub) => leaves(sub, [...prefix, sub.name()]));
}

const program = buildProgram({ exitCode: 0 });
const commands = leaves(program).filter((c) => c.path !== 'help');
const rows = [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => {
  const words = m[1].split(' ');
  const end = words.findIndex((w) => !/^[a-z][a-z:-]*$/.test(w));
  return { path: words.slice(0, end < 0 ? words.length : end).join(' '), flags: [...m[1].matchAll(/--[a-z-]+/g)].map((f) => f[0]).sort() };
});

test('every command has a row in the README, and every row is a command', () => {
  expect(rows.map((r) => r.path).sort()).toEqual(commands.map((c) => c.path).sort());
});

test.each(commands.map((c) => [c.path, c.flags] as const))('the README row of `%s` names its options %j', (name, flags) => {
  expect(rows.find((r) => r.path === name)?.flags).toEqual(flags);
});

test('every command has a description for --help', () => {
  const missing: string[] = [];
  const walk = (command: Command, prefix: string) => {
    for (const sub of command.commands) {
      const name = `${prefix}${sub.name()}`;
      if (!sub.description()) missing.push(name);
      walk(sub, `${name} `);
    }
  };
  walk(program, '');
  expect(missing).toEqual([]);
});
