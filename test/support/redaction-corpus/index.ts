/**
 * The generated redaction corpus (fast-check), shared by the property tests
 * (test/unit/redaction-corpus.test.ts) and `npm run redaction:measure`.
 *
 * Recall of a kind: the share of generated samples from which, in every mode the kind
 * applies to, none of the sample's secret parts survives redaction. False-positive rate:
 * the share of near misses of the kind, and of values Toolgate needs visible, that come
 * back changed in either mode.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { redactInput, redactOutput } from '../../../src/redaction/redact';
import { codeKinds } from './codes';
import { credentialKinds } from './credentials';
import { numberKinds } from './numbers';
import { personalKinds } from './personal';
import { proseKinds } from './prose';
import type { Positive } from './shape';
import type { Kind, Mode, Visible } from './types';
import { visibleKinds } from './visible';

export const KINDS: Kind[] = [...credentialKinds, ...codeKinds, ...numberKinds, ...personalKinds, ...proseKinds];
export const VISIBLE: Visible[] = visibleKinds;

/** The targets (13, item 8). */
export const MIN_RECALL = 0.99;
export const MAX_FALSE_POSITIVES = 0.01;

export const redact = (mode: Mode, value: unknown): unknown => (mode === 'input' ? redactInput(value) : redactOutput(value));

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number') out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) strings(item, out);
  return out;
}

/** The secret parts of `sample` still present after redaction in `mode`. */
export function leaks(sample: Positive, mode: Mode): string[] {
  const left = strings(redact(mode, sample.value));
  return sample.secrets.filter((secret) => left.some((text) => text.includes(secret)));
}

export const changedIn = (value: unknown): Mode[] => (['input', 'output'] as Mode[]).filter((mode) => !isDeepStrictEqual(redact(mode, value), value));

export interface Row {
  name: string;
  /** null for the visible-value families, which have no positives. */
  recall: number | null;
  falsePositives: number;
  /** A few failing samples, to read when a figure is off. */
  misses: unknown[];
  falseHits: unknown[];
}

export function measureKind(kind: Kind, samples: number, seed: number): Row {
  const positives = fc.sample(kind.positives, { seed, numRuns: samples });
  const lookalikes = fc.sample(kind.lookalikes, { seed: seed + 1, numRuns: samples });
  const misses = positives.filter((p) => kind.modes.some((mode) => leaks(p, mode).length > 0));
  const falseHits = lookalikes.filter((value) => changedIn(value).length > 0);
  return {
    name: kind.name,
    recall: 1 - misses.length / positives.length,
    falsePositives: falseHits.length / lookalikes.length,
    misses: misses.slice(0, 5),
    falseHits: falseHits.slice(0, 5),
  };
}

export function measureVisible(family: Visible, samples: number, seed: number): Row {
  const values = fc.sample(family.values, { seed, numRuns: samples });
  const falseHits = values.filter((value) => changedIn(value).length > 0);
  return { name: family.name, recall: null, falsePositives: falseHits.length / values.length, misses: [], falseHits: falseHits.slice(0, 5) };
}

export function measureAll(samples: number, seed: number): Row[] {
  return [...KINDS.map((kind) => measureKind(kind, samples, seed)), ...VISIBLE.map((family) => measureVisible(family, samples, seed))];
}
