/** One entry of the error catalogue: the HTTP status and title every protocol maps from. */
export interface ErrorEntry {
  readonly status: number;
  readonly title: string;
  /** When a client meets it, for docs/errors.md. */
  readonly meaning: string;
}

/**
 * The one error catalogue (docs/errors.md, docs/product.md §5). Domain errors carry a code from
 * it; HTTP answers its status and title as problem+json, OFREP and flagd's gRPC sync map their
 * own codes from its status. docs/errors.md lists the same rows, and a test holds the two together.
 */
export const ERROR_CATALOGUE = {
  validation_failed: {
    status: 400,
    title: 'Invalid request',
    meaning:
      'The request is malformed or invalid: bad JSON or attributes, a failed validation, an unknown field.',
  },
  unauthorized: {
    status: 401,
    title: 'Invalid or missing API key',
    meaning: 'No credential, or an API key or session that is unknown, revoked or expired.',
  },
  forbidden: {
    status: 403,
    title: 'No access to this resource',
    meaning: 'The credential is valid but its role, project or environments do not cover the request.',
  },
  flag_not_found: {
    status: 404,
    title: 'Flag not found',
    meaning: 'No flag with that key or id in a project the caller may see.',
  },
  not_found: { status: 404, title: 'Not found', meaning: 'No such resource in a scope the caller may see.' },
  conflict: {
    status: 409,
    title: 'Conflict',
    meaning:
      'A key that already exists, something still in use, or a change request that can no longer apply.',
  },
  precondition_failed: {
    status: 412,
    title: 'Precondition failed',
    meaning: '`If-Match` names a version that is no longer the current one; nothing changed.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    meaning: 'The request body is over 1 MiB, or a batch of events holds more than 1,000.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    meaning: 'The body is not `application/json` or `application/merge-patch+json`.',
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    meaning: 'The client did not send the whole request in time.',
  },
  rate_limited: {
    status: 429,
    title: 'Rate limit exceeded',
    meaning: 'The credential (or address) used up its budget; `Retry-After` says when to come back.',
  },
  header_too_large: {
    status: 431,
    title: 'Request header fields too large',
    meaning: 'The request headers are over 16 KiB.',
  },
  internal_error: {
    status: 500,
    title: 'Internal server error',
    meaning: 'A fault on the server; the detail carries the request id, which is also in the log.',
  },
  database_unavailable: {
    status: 503,
    title: 'Database unavailable',
    meaning:
      'A write or management read while the database is away; evaluation keeps answering. Retry later.',
  },
  overloaded: {
    status: 503,
    title: 'Overloaded',
    meaning:
      'The node holds as many event batches as it may while they are written; nothing of this one was kept. Retry after `Retry-After` seconds.',
  },
  identity_provider_unavailable: {
    status: 503,
    title: 'Identity provider unavailable',
    meaning: 'Single sign-on could not reach the OpenID provider (discovery, token or keys). Retry later.',
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One problem with one field of a request, addressed by JSON pointer (`/rules/0/operator`). */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly errors: readonly FieldError[] | undefined;

  constructor(code: ErrorCode, message: string, errors?: readonly FieldError[]) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.errors = errors;
  }
}

// One constructor per code: a site names what went wrong, the catalogue how it is answered.
export const validationFailed = (message: string, errors?: readonly FieldError[]) =>
  new DomainError('validation_failed', message, errors);
export const unauthorized = (message: string) => new DomainError('unauthorized', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const flagNotFound = (message: string) => new DomainError('flag_not_found', message);
export const notFound = (message: string) => new DomainError('not_found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const preconditionFailed = (message: string) => new DomainError('precondition_failed', message);
export const payloadTooLarge = (message: string) => new DomainError('payload_too_large', message);
export const overloaded = (message: string) => new DomainError('overloaded', message);

// Messages more than one place gives.
export const noProjectAccess = () => forbidden('This API key has no access to this project.');
export const noSuchEnvironment = (environment: string, projectKey?: string) =>
  notFound(
    projectKey === undefined
      ? `No environment "${environment}" in this project.`
      : `No environment "${environment}" in project "${projectKey}".`,
  );
