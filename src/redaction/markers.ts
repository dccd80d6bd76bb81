/** What a redacted value or substring is replaced with. */
export const REDACTED = '[REDACTED]';

/** What replaces values nested deeper than the depth cap, and the back edge of a cycle. */
export const TRUNCATED = '[TRUNCATED]';

export function containsMarker(text: string): boolean {
  return text.includes(REDACTED) || text.includes(TRUNCATED);
}
