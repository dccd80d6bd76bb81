import { randomUUID } from 'node:crypto';

/** Shared column helpers so every table spells ids and timestamps the same way. */
export const newId = (): string => randomUUID();
export const TIMESTAMPTZ = { type: 'datetime', columnType: 'timestamptz' } as const;
