/**
 * An async generator whose `return()` takes effect while it is waiting. A generator
 * suspended at an `await` (not a `yield`) only sees `return()` once it next yields, so a
 * subscription the client ended would hold its listener until the next event came;
 * `cancel` wakes it first.
 */
export function cancellable<T>(generator: AsyncGenerator<T>, cancel: () => void): AsyncIterableIterator<T> {
  return {
    next: () => generator.next(),
    return: (value?: unknown) => {
      cancel();
      return generator.return(value as T);
    },
    throw: (error?: unknown) => {
      cancel();
      return generator.throw(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** Builds a deferred source's inner source now (see `buildNow`). */
const BUILD = Symbol('build deferred source');

/**
 * A subscription source built on its first `next()`: checks that throw while building it
 * (role, arguments) then end the subscription with an `error` message carrying their
 * code, the same as failures while it runs.
 */
export function deferred<T>(create: () => AsyncIterable<T>): AsyncIterableIterator<T> {
  let built: AsyncIterable<T> | null = null;
  let inner: AsyncIterator<T> | null = null;
  let ended = false;
  const build = () => (built ??= create());
  const source = {
    [BUILD]: build,
    next: async () => {
      if (ended) return { value: undefined as T, done: true };
      inner ??= build()[Symbol.asyncIterator]();
      return inner.next();
    },
    return: async (value?: unknown) => {
      ended = true;
      return (await inner?.return?.(value)) ?? { value: value as T, done: true };
    },
    throw: async (error?: unknown) => {
      ended = true;
      if (inner?.throw) return inner.throw(error);
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return source;
}

/**
 * The source behind a `deferred` one, built now, so that a consumer can look at what kind of
 * source it is (the fan-out pushes ledger feeds itself); the source itself, when it is not
 * deferred. Throws what building throws (the deferred source's `next()` would throw it too).
 */
export function buildNow(source: AsyncIterable<unknown>): AsyncIterable<unknown> {
  const build = (source as { [BUILD]?: () => AsyncIterable<unknown> })[BUILD];
  return build ? build() : source;
}
