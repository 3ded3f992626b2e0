import type { FastifyReply } from 'fastify';
import type { ErrorCode, FieldError } from '../domain/errors.ts';

/** The one table from error code to HTTP status and title (SPEC §5). */
export const ERROR_CATALOGUE: Readonly<Record<ErrorCode, { status: number; title: string }>> = {
  validation_failed: { status: 400, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Invalid or missing API key' },
  forbidden: { status: 403, title: 'No access to this resource' },
  flag_not_found: { status: 404, title: 'Flag not found' },
  not_found: { status: 404, title: 'Not found' },
  conflict: { status: 409, title: 'Conflict' },
  precondition_failed: { status: 412, title: 'Precondition failed' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  request_timeout: { status: 408, title: 'Request timeout' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  header_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal server error' },
  database_unavailable: { status: 503, title: 'Database unavailable' },
  identity_provider_unavailable: { status: 503, title: 'Identity provider unavailable' },
};

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: ErrorCode;
  readonly errors?: readonly FieldError[];
}

/** An RFC 9457 problem document for a code. */
export function problem(code: ErrorCode, detail: string, errors?: readonly FieldError[]): Problem {
  const { status, title } = ERROR_CATALOGUE[code];
  return {
    type: `https://flagstaff.dev/problems/${code.replaceAll('_', '-')}`,
    title,
    status,
    detail,
    code,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}

export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  if (body.status === 401) reply.header('www-authenticate', 'Bearer');
  return reply.code(body.status).type('application/problem+json; charset=utf-8').send(body);
}
