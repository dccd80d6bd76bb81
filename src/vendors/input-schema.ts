/** JSON-schema pieces the actions' input schemas share. */

/** An opaque vendor id: 1-128 characters. */
export const idString = (description: string) => ({ type: 'string', minLength: 1, maxLength: 128, description });
