const cache = new Map<string, RegExp>();

/** `*` matches any run of characters, `?` one; everything else literally. Whole-string match. */
export function globMatches(pattern: string, value: string): boolean {
  let regex = cache.get(pattern);
  if (!regex) {
    const source = pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('');
    regex = new RegExp(`^${source}$`);
    cache.set(pattern, regex);
  }
  return regex.test(value);
}
