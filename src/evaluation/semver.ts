import { coerce, parse, type SemVer } from 'semver';

const PARTIAL_VERSION = /^\d+(\.\d+)?$/;
const V_PREFIX = /^[vV]/;
// Apps report few distinct versions, and parsing one costs more than the rest of an evaluation;
// so parses are remembered, up to a bound that attacker-chosen versions cannot exceed.
const CACHE_LIMIT = 1024;
const cache = new Map<string, SemVer | null>();

function parseText(raw: string): SemVer | null {
  const text = raw.replace(V_PREFIX, '');
  const strict = parse(text);
  if (strict) return strict;
  // coerce alone is too lenient (it finds "1" in "build_1"), so only bare partial versions go through it.
  return PARTIAL_VERSION.test(text) ? coerce(text) : null;
}

/**
 * Parses a version as flagd's `sem_ver` does, so imported and native rules agree: a leading `v`
 * is dropped, `1` and `1.2` mean `1.0.0` and `1.2.0`, anything else must be strict SemVer 2.0; null
 * otherwise. The result is shared between callers: never mutate it.
 */
export function parseVersion(raw: unknown): SemVer | null {
  if (typeof raw !== 'string' && typeof raw !== 'number') return null;
  const text = typeof raw === 'string' ? raw : String(raw);
  let version = cache.get(text);
  if (version === undefined) {
    version = parseText(text);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(text, version);
  }
  return version;
}
