import { createHash } from 'node:crypto';

/**
 * A strong ETag that digests the response body itself, so it changes exactly when the answer
 * changes — a write, a time-based rule coming due — and never otherwise.
 */
export function bodyEtag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** The content codings bulk answers are sent in, most preferred first when a client weighs them equally. */
export const CODINGS = ['br', 'gzip'] as const;
export type Coding = (typeof CODINGS)[number];

/**
 * The ETag of a body sent in `coding`: a representation of its own (RFC 9110 §8.8.3), so a
 * strong ETag must differ from the plain one's (decision 2001). `"digest"` becomes `"digest-br"`.
 */
export function codedEtag(etag: string, coding: Coding): string {
  return `${etag.slice(0, -1)}-${coding}"`;
}

/**
 * RFC 9110 §13.1.2: `*`, or any listed tag equal to `etag` or one of its coded forms under weak
 * comparison: a client holding the body in any coding holds the current answer.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const current = new Set([etag, ...CODINGS.map((coding) => codedEtag(etag, coding))].map(opaque));
  return header.split(',').some((tag) => current.has(opaque(tag)));
}
