import type fc from 'fast-check';
import type { Positive } from './shape';

export type Mode = 'input' | 'output';

/** One kind of secret or personal data the redactor claims to remove. */
export interface Kind {
  name: string;
  /** Where it must go: secrets in inputs and outputs, personal data in outputs only. */
  modes: Mode[];
  positives: fc.Arbitrary<Positive>;
  /** Near misses of the kind that must come back unchanged in every mode. */
  lookalikes: fc.Arbitrary<unknown>;
}

/** Values Toolgate needs visible (ids, dates, amounts): unchanged in inputs and outputs. */
export interface Visible {
  name: string;
  values: fc.Arbitrary<unknown>;
}
