import { randomBytes } from 'node:crypto';

/**
 * Request ids (`X-Request-Id`, log lines, audit events): `req_`, 16 random hex digits drawn once
 * per process, then a counter in base 36 (`req_3f9a1c0d5e7b2a48-1k`). Unique across nodes and
 * restarts as a UUID per request would be, for a fraction of its cost on every request
 * (docs/decisions/1790). An id names a request; it proves nothing and is no secret.
 */
export function requestIds(): () => string {
  const prefix = `req_${randomBytes(8).toString('hex')}-`;
  let count = 0;
  return () => {
    count += 1;
    return prefix + count.toString(36);
  };
}
