import type * as http from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../../domain/database-unavailable.ts';
import { DomainError } from '../../domain/errors.ts';
import { KEY_MAX_LENGTH, MAX_PATH_PART_LENGTH } from '../../domain/keys.ts';
import { type Problem, problem, sendProblem } from '../problem.ts';
import { fieldErrors } from '../validation.ts';

// Required, not imported: an ES import of node:http reads every export, and its lazy `WebSocket`,
// `CloseEvent` and `MessageEvent` load Node's bundled undici: ~2.4 MB of heap, which a node then
// carries only once it fetches (a webhook, a sign-in).
const { STATUS_CODES } = createRequire(import.meta.url)('node:http') as typeof http;

/** Fastify's own errors that are the client's doing, by the code they carry. */
const CLIENT_ERRORS: Readonly<
  Record<number, 'payload_too_large' | 'unsupported_media_type' | 'validation_failed'>
> = {
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  400: 'validation_failed',
};

/** A node resynchronises within 5 s of the database returning. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Every error leaves as RFC 9457 problem+json; a 500 reveals nothing but the request id. */
/** `upstream`: this app is an edge (SPEC §14); what it does not serve, its upstream does, and the 404 says so. */
export function registerErrorHandling(app: FastifyInstance, upstream?: string): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof DomainError)
      return sendProblem(reply, problem(error.code, error.message, error.errors));
    if (error.validation) {
      const errors = fieldErrors(error.validation as never, error.validationContext ?? 'body');
      return sendProblem(reply, problem('validation_failed', 'The request is not valid.', errors));
    }
    if (isDatabaseUnavailable(error)) {
      // Evaluation answers from memory meanwhile; what needs the database waits for it (docs/product.md §8).
      reply.header('retry-after', DATABASE_RETRY_AFTER_SECONDS);
      return sendProblem(
        reply,
        problem(
          'database_unavailable',
          'The database is unreachable; evaluation still works. Retry shortly.',
        ),
      );
    }
    const code = error.statusCode === undefined ? undefined : CLIENT_ERRORS[error.statusCode];
    if (code !== undefined) return sendProblem(reply, problem(code, clientMessage(error)));
    request.log.error({ err: error }, 'request failed');
    return sendProblem(
      reply,
      problem('internal_error', `Something went wrong on our side. Request id: ${request.id}.`),
    );
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    // The router refuses an over-long part before routing only when no wildcard (the dashboard's
    // pages) could take the path instead; either way the client hears why.
    const answer = path.split('/').some((part) => part.length > MAX_PATH_PART_LENGTH)
      ? problem('validation_failed', PATH_PART_TOO_LONG)
      : upstream !== undefined
        ? problem('not_found', notOnEdge(request.method, path, upstream))
        : problem('not_found', `No route ${request.method} ${path}.`);
    return sendUnmatched(request, reply, answer);
  });
}

/** An edge serves evaluation, OFREP, flagd sync and events; the rest (management) is its upstream's. */
export const notOnEdge = (method: string, path: string, upstream: string): string =>
  `No route ${method} ${path} on this edge: it serves evaluation, OFREP, flagd sync and events; manage flags, keys and projects on its upstream, ${upstream}.`;

/** An answer no route gives: timed for /metrics as `unmatched` (route hooks time the others), then sent. */
function sendUnmatched(request: FastifyRequest, reply: FastifyReply, answer: Problem): FastifyReply {
  reply.code(answer.status);
  request.server.observeUnmatched?.(request, reply);
  return sendProblem(reply, answer);
}

const PATH_PART_TOO_LONG = `A part of the URL path is longer than ${MAX_PATH_PART_LENGTH} characters; keys are at most ${KEY_MAX_LENGTH}.`;

/**
 * Fastify's `frameworkErrors`: errors raised while routing, before any route runs. A malformed
 * percent-encoding (`/v1/flags/a%zz`) or an over-long path segment is the client's to fix: a
 * 400 problem that never echoes the URL (it may carry a secret in its query).
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // No route, so no arrival hook ran: sendProblem sets the request id every answer carries.
  const detail =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? PATH_PART_TOO_LONG
      : 'The URL is not valid: it has a malformed percent-encoding.';
  void sendUnmatched(request, reply, problem('validation_failed', detail));
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before there is a request
 * (headers over Node's 16 KiB, a timeout, bytes that are not HTTP), answered as problem+json
 * on the raw socket, then the socket closed as Node itself does.
 */
export function clientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? problem('header_too_large', 'The request headers (or its URL) are larger than 16 KiB.')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? problem('request_timeout', 'The request took too long to arrive.')
        : problem('validation_failed', 'The request is not valid HTTP.');
  const body = JSON.stringify(answer);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\nConnection: close\r\n` +
        `Content-Type: application/problem+json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is larger than 1 MiB.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Send JSON: Content-Type application/json (or application/merge-patch+json for PATCH).';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The body is empty; send a JSON document.';
    default:
      return error.message.startsWith('Body is not valid JSON') ||
        error.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
        ? 'The body is not valid JSON.'
        : error.message;
  }
}
