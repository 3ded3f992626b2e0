import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import type { Actor } from '../services/actor.ts';
import type { Page, PageRequest } from '../storage/store.ts';

/** The authenticated actor of a request (set by the authentication plugin). */
export function actorOf(request: FastifyRequest): Actor {
  const principal = request.principal;
  if (principal === undefined) throw new DomainError('unauthorized', 'Authentication is required.');
  return request.grant === undefined
    ? { principal, requestId: request.id }
    : { principal, requestId: request.id, grant: request.grant };
}

/** The version named by `If-Match` (`"3"`, `W/"3"` or `3`); undefined when absent or `*`. */
export function ifMatchOf(request: FastifyRequest): number | undefined {
  const header = request.headers['if-match'];
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(header);
  // An If-Match we cannot read can match no version: refuse it as stale rather than ignore it.
  if (match === null)
    throw new DomainError('precondition_failed', `If-Match "${header}" names no version of this resource.`);
  return Number(match[1]);
}

export const pageOf = (query: { limit?: number; cursor?: string }): PageRequest => ({
  limit: query.limit ?? 100,
  cursor: query.cursor,
});

/** Sends a list as a JSON array; when more remain, a `Link: <…>; rel="next"` header points at them. */
export function sendPage<T, R>(
  request: FastifyRequest,
  reply: FastifyReply,
  page: Page<T>,
  map: (item: T) => R,
): R[] {
  if (page.nextCursor !== undefined) {
    const url = new URL(request.url, 'http://placeholder');
    url.searchParams.set('cursor', page.nextCursor);
    reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
  }
  return page.items.map(map);
}

/** Sends one resource with its version as the ETag. */
export function sendResource<T extends { version: number }>(
  reply: FastifyReply,
  resource: T,
  status = 200,
): T {
  reply.code(status).header('etag', `"${resource.version}"`);
  return resource;
}

/** 201 with the new resource's address. */
export function sendCreated<T extends { version: number }>(
  reply: FastifyReply,
  location: string,
  resource: T,
): T {
  reply.header('location', location);
  return sendResource(reply, resource, 201);
}

/** 204: done, nothing to say. */
export const sendNoContent = (reply: FastifyReply) => reply.code(204).send();
