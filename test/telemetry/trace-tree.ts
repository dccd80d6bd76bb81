import { randomBytes } from 'node:crypto';

/**
 * A finished span as the tests read it, from either the in-memory exporter or an OTLP/JSON
 * export: ids in hex, attributes flattened to plain values.
 */
export interface SeenSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  /** The exporting process (resource `process.pid`), for spans from several server processes. */
  pid: number | undefined;
}

/** A fresh W3C traceparent (sampled) and its ids. */
export function newTraceparent(): { header: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

/** The spans of a trace as a tree: parent lookups and a named-ancestor check. */
export class SpanTree {
  private readonly byId = new Map<string, SeenSpan>();

  constructor(readonly spans: SeenSpan[]) {
    for (const span of spans) this.byId.set(span.spanId, span);
  }

  named(name: string): SeenSpan[] {
    return this.spans.filter((s) => s.name === name);
  }

  where(match: (span: SeenSpan) => boolean): SeenSpan[] {
    return this.spans.filter(match);
  }

  parentOf(span: SeenSpan): SeenSpan | undefined {
    return span.parentSpanId ? this.byId.get(span.parentSpanId) : undefined;
  }

  /** The nearest ancestor with this name (a span's own HTTP or SQL children sit between). */
  ancestorNamed(span: SeenSpan, name: string): SeenSpan | undefined {
    for (let at = this.parentOf(span); at; at = this.parentOf(at)) if (at.name === name) return at;
    return undefined;
  }

  children(span: SeenSpan): SeenSpan[] {
    return this.spans.filter((s) => s.parentSpanId === span.spanId);
  }

  /** Every span under `span`, at any depth. */
  descendants(span: SeenSpan): SeenSpan[] {
    const found: SeenSpan[] = [];
    const walk = (at: SeenSpan) => {
      for (const child of this.children(at)) {
        found.push(child);
        walk(child);
      }
    };
    walk(span);
    return found;
  }

  /** Every attribute value of every span, as text: for "never in a span" checks. */
  attributeText(): string {
    return JSON.stringify(this.spans.map((s) => s.attributes));
  }
}
