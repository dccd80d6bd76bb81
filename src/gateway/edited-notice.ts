// What a model is told about a call whose params a reviewer changed before approving it.

/** The notice beside the result (the params follow it, redacted, as `editedParams`). */
export const EDITED_NOTICE =
  'A reviewer changed the parameters of this tool call before approving it: it ran with editedParams, not with the parameters you requested. Describe the action with editedParams.';

/** The same, as one sentence with the params (an error result, an MCP text part). */
export function editedSentence(editedParams: unknown): string {
  return `A reviewer changed the parameters of this tool call before approving it; it ran with ${JSON.stringify(editedParams)}, not with the parameters you requested.`;
}
