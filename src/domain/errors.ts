/**
 * Domain errors carry a stable code, never an HTTP status: `http/` maps codes to statuses
 * in one table (SPEC §5).
 */
export type ErrorCode =
  | 'validation_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'flag_not_found'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'request_timeout'
  | 'header_too_large'
  | 'internal_error'
  | 'database_unavailable'
  | 'identity_provider_unavailable';

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

export const validationFailed = (message: string, errors?: readonly FieldError[]) =>
  new DomainError('validation_failed', message, errors);
export const notFound = (message: string) => new DomainError('not_found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
