// One entry of the settings table (settings.ts): how its variable is read and defaulted, how
// it is documented (.env.example, the README) and how a log line shows it. The builders wrap
// the parsers of env.ts, so every error names its variable.
import path from 'node:path';
import { boolean, type Env, httpUrl, integer as parseInteger, nonEmpty, oneOf } from './env';

/** What a default may depend on; read through the table itself (NODE_ENV, DATABASE_URL). */
export interface DefaultsContext {
  production: boolean;
  /** The embedded database outside production: a first try (demo org, sandboxes, loopback egress). */
  embeddedDemo: boolean;
}

/** Where a value sits in Config (a dotted path) and what a log line shows instead of it. */
export interface Masking {
  field: string;
  show(value: unknown): unknown;
}

export function masking<T>(field: string, show: (value: T) => unknown): Masking {
  return { field, show: (value) => show(value as T) };
}

export interface Doc {
  /** One line: .env.example's comment, and the README's meaning unless `readme` says more. */
  description: string;
  /** The README's meaning (markdown) where it says more than the description. */
  readme?: string;
  /** A secret: left empty in .env.example, and masked where the configuration is logged. */
  secret?: Masking;
  /** Not a secret, yet masked in logs (an endpoint URL may carry a password). */
  masked?: Masking;
}

export interface Setting<T> extends Doc {
  /** As documented: a value to write (`4000`), words when it depends on other settings, '' for none. */
  default: string;
  /** Reads the variable `name` from `env`. */
  read(env: Env, name: string, context: () => DefaultsContext): T;
}

/** A default that follows from other settings, with the words that document it. */
interface Derived<T> {
  default: (context: DefaultsContext) => T;
  defaultDoc: string;
}

function setting<T>(doc: Doc, defaultDoc: string, read: Setting<T>['read']): Setting<T> {
  const { description, readme, secret, masked } = doc;
  return { description, readme, secret, masked, default: defaultDoc, read };
}

export function integer(o: Doc & { default: number; min: number; max: number }): Setting<number> {
  return setting(o, String(o.default), (env, name) => parseInteger(env, name, o.default, o.min, o.max));
}

/** An integer without a default: undefined when unset. */
export function optionalInteger(o: Doc & { min: number; max: number }): Setting<number | undefined> {
  return setting(o, '', (env, name) => (nonEmpty(env[name]) === undefined ? undefined : parseInteger(env, name, 0, o.min, o.max)));
}

/** true/false (also 1/0, yes/no, on/off). */
export function flag(o: Doc & ({ default: boolean } | Derived<boolean>)): Setting<boolean> {
  const fallback = o.default;
  const defaultDoc = typeof fallback === 'function' ? (o as Derived<boolean>).defaultDoc : String(fallback);
  return setting(o, defaultDoc, (env, name, context) => boolean(env, name, typeof fallback === 'function' ? fallback(context()) : fallback));
}

export function choice<T extends string>(o: Doc & { values: readonly T[]; default: NoInfer<T> }): Setting<T> {
  return setting(o, o.default, (env, name) => oneOf(env, name, o.values, o.default));
}

/** One of `values`, or undefined when unset (the default is decided elsewhere, in words). */
export function optionalChoice<T extends string>(o: Doc & { values: readonly T[]; defaultDoc: string }): Setting<T | undefined> {
  return setting(o, o.defaultDoc, (env, name) => (nonEmpty(env[name]) === undefined ? undefined : oneOf(env, name, o.values, o.values[0])));
}

/** Trimmed text; `default` when unset or blank. */
export function text(o: Doc & { default: string }): Setting<string>;
export function text(o: Doc & { defaultDoc?: string }): Setting<string | undefined>;
export function text(o: Doc & { default?: string; defaultDoc?: string }): Setting<string | undefined> {
  return setting(o, o.defaultDoc ?? o.default ?? '', (env, name) => nonEmpty(env[name]) ?? o.default);
}

/** A file or folder, resolved to an absolute path. */
export function filePath(o: Doc & { default: string }): Setting<string>;
export function filePath(o: Doc & { defaultDoc: string }): Setting<string | undefined>;
export function filePath(o: Doc & { default?: string; defaultDoc?: string }): Setting<string | undefined> {
  return setting(o, o.defaultDoc ?? o.default ?? '', (env, name) => {
    const value = nonEmpty(env[name]) ?? o.default;
    return value === undefined ? undefined : path.resolve(value);
  });
}

/** An http(s) URL without its trailing slashes; undefined when unset. */
export function url(o: Doc & { defaultDoc?: string }): Setting<string | undefined> {
  return setting(o, o.defaultDoc ?? '', (env, name) => httpUrl(env, name));
}

/** A value with a parser of its own; `defaultDoc` documents what it is when unset. */
export function custom<T>(o: Doc & { defaultDoc: string; read: Setting<T>['read'] }): Setting<T> {
  return setting(o, o.defaultDoc, o.read);
}

/** A titled section of the table (of .env.example), its settings keyed by variable name. */
export function group<S extends Record<string, Setting<unknown>>>(title: string, settings: S): { title: string; settings: S } {
  return { title, settings };
}
