/** Socket-level failures: the server is unreachable or the connection broke. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/**
 * PostgreSQL's answers that mean "not now" rather than "wrong request": connection exceptions
 * (class 08), and the server shutting down or starting up (57P01–57P03).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123])$/;

/** What pg and its pool throw when a connection cannot be made or was lost. */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection closed|Client was closed and is not queryable/i;

/** True when `error` says the database cannot be reached (answer 503), not that the request was wrong. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  const cause = (error as { cause?: unknown }).cause;
  // AggregateError (several addresses refused) and wrapped errors carry the real one inside.
  const inner = (error as { errors?: unknown }).errors;
  return (
    (cause !== undefined && isDatabaseUnavailable(cause)) ||
    (Array.isArray(inner) && inner.some(isDatabaseUnavailable))
  );
}
