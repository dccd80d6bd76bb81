/**
 * A small reader of the Prometheus text exposition format (version 0.0.4), enough for
 * tests: `# TYPE` lines name the families, each sample line is `name{labels} value`.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name → type (counter, gauge, histogram, summary). */
  types: Map<string, string>;
  samples: Sample[];
  /** The sum of the samples of `name` whose labels include `labels` (0 when none). */
  value(name: string, labels?: Record<string, string>): number;
  /** The samples of `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) types.set(type[1], type[2]);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    if (match[2]) {
      LABEL.lastIndex = 0;
      let consumed = 0;
      for (let label = LABEL.exec(match[2]); label; label = LABEL.exec(match[2])) {
        labels[label[1]] = label[2].replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
        consumed = LABEL.lastIndex;
      }
      if (consumed !== match[2].length) throw new Error(`unreadable labels: ${line}`);
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return { types, samples, find, value: (name, labels) => find(name, labels).reduce((sum, s) => sum + s.value, 0) };
}

/** GET the metrics URL with a bearer token (or none); the status and the parsed body. */
export async function scrape(url: string, token: string | null): Promise<{ status: number; headers: Headers; text: string; metrics: Exposition }> {
  const response = await fetch(url, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, metrics: response.ok ? parseExposition(text) : parseExposition('') };
}
