import { MAX_FALSE_POSITIVES, measureAll, MIN_RECALL } from '../test/support/redaction-corpus';

/**
 * `npm run redaction:measure`: recall and false-positive rate of the redactor per kind on
 * the generated corpus. REDACTION_SAMPLES (default 10 000 per kind and per near-miss set)
 * and REDACTION_SEED (default 13) choose the corpus; REDACTION_SHOW_MISSES=1 prints a few
 * failing samples. Exits 1 when a kind misses its target (recall ≥ 99 %, false positives ≤ 1 %).
 */
const samples = Number(process.env.REDACTION_SAMPLES ?? 10_000);
const seed = Number(process.env.REDACTION_SEED ?? 13);
const showMisses = process.env.REDACTION_SHOW_MISSES === '1';

const percent = (share: number) => `${(share * 100).toFixed(2)} %`;
const rows = measureAll(samples, seed);

console.log(`redaction corpus: ${samples} samples per kind, seed ${seed}\n`);
console.log('| kind | recall | false positives |');
console.log('| --- | ---: | ---: |');
for (const row of rows) console.log(`| ${row.name} | ${row.recall === null ? '—' : percent(row.recall)} | ${percent(row.falsePositives)} |`);

const failing = rows.filter((row) => (row.recall !== null && row.recall < MIN_RECALL) || row.falsePositives > MAX_FALSE_POSITIVES);
if (showMisses) {
  for (const row of rows) {
    for (const miss of row.misses) console.log(`\nMISS ${row.name}: ${JSON.stringify(miss)}`);
    for (const hit of row.falseHits) console.log(`\nFALSE HIT ${row.name}: ${JSON.stringify(hit)}`);
  }
}
if (failing.length > 0) {
  console.error(`\nbelow target: ${failing.map((row) => row.name).join(', ')}`);
  process.exitCode = 1;
}
