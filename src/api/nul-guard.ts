import { Kind, visit, type DocumentNode } from 'graphql';
import { badInput } from '../errors/app-error';

/**
 * PostgreSQL text and jsonb cannot hold NUL (U+0000): a string argument carrying one
 * would fail in the database (INTERNAL_SERVER_ERROR, the value in its log line). Refused
 * before execution instead, for every operation on every transport, as BAD_USER_INPUT
 * naming where it was. In-process callers of the gateway store NUL as U+FFFD (storable).
 */
export function assertNoNul(document: DocumentNode, variables: Record<string, unknown> | null | undefined): void {
  if (literalsWithNul(document)) throw badInput('String arguments must not contain NUL characters', { field: 'query' });
  const path = nulPath(variables ?? {}, '$');
  if (path) throw badInput('String arguments must not contain NUL characters', { field: path });
}

const checked = new WeakMap<DocumentNode, boolean>();

/** Inline string literals are in the document itself: checked once per parsed document. */
function literalsWithNul(document: DocumentNode): boolean {
  let found = checked.get(document);
  if (found === undefined) {
    found = false;
    visit(document, {
      [Kind.STRING](node) {
        if (node.value.includes('\u0000')) found = true;
      },
    });
    checked.set(document, found);
  }
  return found;
}

function nulPath(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  for (const [key, item] of Object.entries(value)) {
    const found = key.includes('\u0000') ? `${path}.<key>` : nulPath(item, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return null;
}
