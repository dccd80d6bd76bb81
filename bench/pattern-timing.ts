import { spawnSync } from 'node:child_process';
import Ajv from 'ajv';
import { untrustedSchemaAjv } from '../src/vendors/input-schema';

/**
 * `npm run bench:patterns`: how long one validation of a hostile input takes against an
 * upstream schema with a catastrophic-backtracking `pattern` (`^(a+)+$`, `a…a!`), with
 * Ajv's default engine (RegExp, backtracking) and with the engine Toolgate compiles upstream
 * schemas with (RE2). Each backtracking run is a child process, ended after
 * PATTERN_TIMING_LIMIT_S seconds (default 30): a stalled one would stall the benchmark too.
 */
const SCHEMA = { type: 'object', properties: { city: { type: 'string', pattern: '^(a+)+$' } } };
const LENGTHS = [20, 24, 28, 32, 40, 1000];

function timeOnce(ajv: Ajv, length: number): number {
  const validate = ajv.compile(SCHEMA);
  const begun = performance.now();
  validate({ city: `${'a'.repeat(length)}!` });
  return performance.now() - begun;
}

const child = process.argv.indexOf('--backtracking');
if (child >= 0) {
  process.stdout.write(String(timeOnce(new Ajv({ strict: false }), Number(process.argv[child + 1]))));
} else {
  const limitS = Number(process.env.PATTERN_TIMING_LIMIT_S ?? 30);
  for (const length of LENGTHS) {
    const linear = timeOnce(untrustedSchemaAjv(), length);
    const run = spawnSync(process.execPath, [__filename, '--backtracking', String(length)], { timeout: limitS * 1000, encoding: 'utf8' });
    const backtracking = run.status === 0 ? `${Number(run.stdout).toFixed(1)} ms` : `> ${limitS} s (stopped)`;
    console.log(`${length} characters: RE2 ${linear.toFixed(2)} ms; backtracking RegExp ${backtracking}`);
  }
}
