#!/usr/bin/env node
import '../telemetry/tracing-boot';
import 'reflect-metadata';
import { type Command, CommanderError } from 'commander';
import { buildProgram } from './program';
import { describeCommanderExit, describeFailure } from './failure';
import { stopTracing } from '../telemetry/tracing';

/**
 * The `toolgate` command (src/cli/program.ts defines its commands). Exit codes: 0 done,
 * 1 failed (a stable code is printed), 2 bad usage or configuration, 70 fenced (`start`).
 */
async function main(argv: string[]): Promise<number> {
  const run = { exitCode: 0 };
  const program = buildProgram(run);
  // The command being parsed, for the help shown after an unknown subcommand.
  let current: Command = program;
  program.hook('preSubcommand', (_parent, sub) => {
    current = sub;
  });
  // Every level (`keys revoke` too): misuse throws here and exits 2 instead of commander exiting 1.
  const everyCommand = (command: Command): Command[] => [command, ...command.commands.flatMap(everyCommand)];
  for (const command of everyCommand(program)) {
    command.exitOverride().configureOutput({ outputError: () => undefined });
  }
  const verbose = argv.includes('--verbose');
  try {
    if (argv.length === 0) {
      process.stderr.write(program.helpInformation());
      return 2;
    }
    await program.parseAsync(argv, { from: 'user' });
    return run.exitCode;
  } catch (error) {
    const failure =
      error instanceof CommanderError
        ? describeCommanderExit(error, { path: current === program ? '' : `${current.name()} `, help: current.helpInformation() })
        : describeFailure(error, verbose);
    process.stderr.write(failure.text);
    return failure.exitCode;
  }
}

// The last spans are flushed before the exit (a no-op without tracing).
main(process.argv.slice(2))
  .then(async (code) => {
    await stopTracing();
    return code;
  })
  .then((code) => process.exit(code));
