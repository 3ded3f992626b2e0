/**
 * `compute` remembered by key, so that identical parts of many flags (an attribute reader for
 * `country`, a regular expression, a condition) are compiled once and shared by every flag and
 * environment that uses them: a 10,000-flag project repeats the same few attribute names,
 * patterns and conditions thousands of times (decision 1600's memory target). Only for pure results
 * that no one mutates. The cache is emptied when it reaches `limit` entries, so a stream of
 * distinct inputs never grows it without bound; what was compiled before stays valid where it is used.
 */
export function sharedCompiled<I, V>(
  compute: (input: I) => V,
  limit: number,
  keyOf: (input: I) => unknown = (input) => input,
): (input: I) => V {
  const cache = new Map<unknown, V>();
  return (input) => {
    const key = keyOf(input);
    let value = cache.get(key);
    if (value === undefined && !cache.has(key)) {
      if (cache.size >= limit) cache.clear();
      value = compute(input);
      cache.set(key, value);
    }
    return value as V;
  };
}
