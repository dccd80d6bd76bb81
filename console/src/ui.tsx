import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiError } from './api';

/**
 * An error as the API named it: code first, so it can be looked up in the README; `explain`
 * may add a sentence of the view's own (from the error's extensions).
 */
export function ErrorNote({ error, explain }: { error: unknown; explain?: (error: ApiError) => string | null }) {
  if (!error) return null;
  const code = error instanceof ApiError ? error.code : 'ERROR';
  const message = error instanceof Error ? error.message : String(error);
  const extra = error instanceof ApiError ? explain?.(error) : null;
  return (
    <p class="error" role="alert">
      <code>{code}</code> {message}
      {extra && <span class="error-detail">{extra}</span>}
    </p>
  );
}

/** The current time, once a second. */
export function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** DateTimeISO arrives as an ISO string (typed unknown by codegen). */
export function timeLeft(until: unknown, now: number): string {
  const ms = new Date(String(until)).getTime() - now;
  if (ms <= 0) return 'expired';
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : `${m} min ${String(sec).padStart(2, '0')} s`;
}

export const when = (iso: unknown): string => (iso ? new Date(String(iso)).toLocaleString() : '—');

export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    // A named figure, not a landmark (cards repeat it: landmarks must be unique); focusable so the keyboard can scroll it.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable box must take focus to scroll without a mouse
    <figure class="json" aria-label={label} tabIndex={0}>
      <pre>{JSON.stringify(value, null, 2)}</pre>
    </figure>
  );
}

export function Badge({ kind, children }: { kind: string; children: ComponentChildren }) {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="panel" aria-label={title}>
      <header class="panel-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/**
 * Who resolved an approval, as a reviewer reads it: a person who signed in with single
 * sign-on by their name, marked "(SSO)" so it is not taken for a key's name; a key by its
 * name (`resolvedByName`: its name, else its role and prefix), else its id.
 */
export function resolverName(approval: {
  resolvedBy?: string | null;
  resolvedByName?: string | null;
  resolvedByPerson?: { name: string | null } | null;
}): string | null {
  const person = approval.resolvedByPerson;
  if (person) return `${person.name ?? approval.resolvedByName ?? 'a person'} (SSO)`;
  return approval.resolvedByName ?? approval.resolvedBy ?? null;
}
