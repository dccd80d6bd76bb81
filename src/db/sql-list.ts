/** A SQL list of constant strings (a state machine's statuses), e.g. `'queued', 'running'`; never user input. */
export const sqlList = (values: readonly string[]): string => values.map((value) => `'${value}'`).join(', ');
