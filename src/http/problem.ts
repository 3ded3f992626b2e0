import type { FastifyReply } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode, type FieldError } from '../domain/errors.ts';

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: ErrorCode;
  readonly errors?: readonly FieldError[];
}

/** An RFC 9457 problem document for a code, with the catalogue's status and title (src/domain/errors.ts). */
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

/**
 * Sends a problem. It carries the request id like every answer: routes set it on arrival
 * (route-arrival.ts), and an answer made before that, or by no route (a 404, a malformed
 * URL, a hook of a whole scope), gets it here.
 */
export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  if (!reply.hasHeader('x-request-id')) reply.header('x-request-id', reply.request.id);
  if (body.status === 401) reply.header('www-authenticate', 'Bearer');
  return reply.code(body.status).type('application/problem+json; charset=utf-8').send(body);
}
