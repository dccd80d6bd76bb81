/** JSON-schema pieces the actions' input schemas share. */

/** An opaque vendor id: 1-128 characters. */
export const idString = (description: string) => ({ type: 'string', minLength: 1, maxLength: 128, description });

/** The input schema of an action that takes one vendor id and nothing else. */
export const singleIdInput = (field: string, description: string) => ({
  type: 'object',
  properties: { [field]: idString(description) },
  required: [field],
  additionalProperties: false,
});

/** A read that costs nothing: policy allows it by default, and the executor may repeat it. */
export const FREE_READ = { defaultRisk: 'low', costCents: 0, idempotent: true } as const;
