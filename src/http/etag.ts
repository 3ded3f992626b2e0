import { createHash } from 'node:crypto';

/**
 * A strong ETag that digests the response body itself, so it changes exactly when the answer
 * changes — a write, a time-based rule coming due — and never otherwise.
 */
export function bodyEtag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 §13.1.2: `*`, or any listed tag equal to `etag` under weak comparison. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const current = opaque(etag);
  return header.split(',').some((tag) => opaque(tag) === current);
}
