import { coerce, parse, type SemVer } from 'semver';

const PARTIAL_VERSION = /^\d+(\.\d+)?$/;
const V_PREFIX = /^[vV]/;

/**
 * Parses a version as flagd's `sem_ver` does, so imported and native rules agree: a leading `v`
 * is dropped, `1` and `1.2` mean `1.0.0` and `1.2.0`, anything else must be strict SemVer 2.0; null otherwise.
 */
export function parseVersion(raw: unknown): SemVer | null {
  if (typeof raw !== 'string' && typeof raw !== 'number') return null;
  const text = String(raw).replace(V_PREFIX, '');
  const strict = parse(text);
  if (strict) return strict;
  // coerce alone is too lenient (it finds "1" in "build_1"), so only bare partial versions go through it.
  return PARTIAL_VERSION.test(text) ? coerce(text) : null;
}
