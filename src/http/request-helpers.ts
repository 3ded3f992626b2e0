import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChangeRequest } from '../domain/change-request.ts';
import { preconditionFailed, unauthorized, validationFailed } from '../domain/errors.ts';
import type { Page, PageRequest } from '../domain/page.ts';
import type { Actor } from '../services/core/actor.ts';
import type { Gated } from '../services/core/write-gate.ts';
import type { FlagService } from '../services/flags/flag-service.ts';

/** The authenticated actor of a request (set by the authentication plugin). */
export function actorOf(request: FastifyRequest): Actor {
  const principal = request.principal;
  if (principal === undefined) throw unauthorized('Authentication is required.');
  return request.grant === undefined
    ? { principal, requestId: request.id }
    : { principal, requestId: request.id, grant: request.grant };
}

/** The id of the flag a `/projects/:projectId/flags/:flagKey/…` path names (by key or id), found as reading it finds it. */
export async function flagIdInPath(
  flags: Pick<FlagService, 'get'>,
  request: FastifyRequest,
): Promise<string> {
  const { projectId, flagKey } = request.params as { projectId: string; flagKey: string };
  return (await flags.get(actorOf(request), projectId, flagKey)).id;
}

/** The version named by `If-Match` (`"3"`, `W/"3"` or `3`); undefined when absent or `*`. */
export function ifMatchOf(request: FastifyRequest): number | undefined {
  const header = request.headers['if-match'];
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(header);
  // An If-Match we cannot read can match no version: refuse it as stale rather than ignore it.
  if (match === null) throw preconditionFailed(`If-Match "${header}" names no version of this resource.`);
  return Number(match[1]);
}

export const pageOf = (query: { limit?: number; cursor?: string }): PageRequest => ({
  limit: query.limit ?? 100,
  cursor: query.cursor,
});

/** A page of a list that pages both ways and is counted (CountedPageQuery; docs/decisions/1800). */
export function countedPageOf(query: { limit?: number; cursor?: string; before?: string }): PageRequest {
  if (query.cursor !== undefined && query.before !== undefined) {
    const message = 'must not be given with cursor: a page is either after one cursor or before another';
    throw validationFailed(`before ${message}.`, [{ path: 'querystring:/before', message }]);
  }
  return { ...pageOf(query), before: query.before, counted: true };
}

/** The header that says how many items a counted list holds, on every page together. */
export const TOTAL_COUNT_HEADER = 'X-Total-Count';
/** The header that says how many of them come before this page's first. */
export const PAGE_OFFSET_HEADER = 'X-Page-Offset';

/**
 * Sends a list as a JSON array; when more remain, a `Link: <…>; rel="next"` header points at them,
 * and on a counted list `rel="prev"` at those before, with the count in `X-Total-Count` and the
 * page's place in it in `X-Page-Offset`.
 */
export function sendPage<T, R>(
  request: FastifyRequest,
  reply: FastifyReply,
  page: Page<T>,
  map: (item: T) => R,
): R[] {
  const linkTo = (cursor: string, rel: 'next' | 'prev') => {
    const url = new URL(request.url, 'http://placeholder');
    url.searchParams.delete(rel === 'next' ? 'before' : 'cursor');
    url.searchParams.set(rel === 'next' ? 'cursor' : 'before', cursor);
    return `<${url.pathname}${url.search}>; rel="${rel}"`;
  };
  const links = [
    ...(page.nextCursor === undefined ? [] : [linkTo(page.nextCursor, 'next')]),
    ...(page.previousCursor === undefined ? [] : [linkTo(page.previousCursor, 'prev')]),
  ];
  if (links.length > 0) reply.header('link', links.join(', '));
  if (page.total !== undefined) reply.header(TOTAL_COUNT_HEADER, String(page.total));
  if (page.offset !== undefined) reply.header(PAGE_OFFSET_HEADER, String(page.offset));
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

// Handlers of the common route shapes: each takes what differs (which service call), and does
// what every such route does (the actor, If-Match, the ETag, the Link header, the status).

/** What a write takes from its request: the version named by If-Match. */
export interface WriteOptions {
  readonly ifMatch: number | undefined;
}

const writeOptionsOf = (request: FastifyRequest): WriteOptions => ({ ifMatch: ifMatchOf(request) });

/** One resource, answered with its version as the ETag. */
export async function sendRead<T extends { version: number }>(
  request: FastifyRequest,
  reply: FastifyReply,
  read: (actor: Actor) => Promise<T>,
): Promise<T> {
  return sendResource(reply, await read(actorOf(request)));
}

/** A write under the request's If-Match, answered with what it wrote and its new version as the ETag. */
export async function sendWritten<T extends { version: number }>(
  request: FastifyRequest,
  reply: FastifyReply,
  write: (actor: Actor, options: WriteOptions) => Promise<T>,
): Promise<T> {
  return sendResource(reply, await write(actorOf(request), writeOptionsOf(request)));
}

/** A delete under the request's If-Match: 204. */
export async function sendDeleted(
  request: FastifyRequest,
  reply: FastifyReply,
  remove: (actor: Actor, options: WriteOptions) => Promise<void>,
): Promise<FastifyReply> {
  await remove(actorOf(request), writeOptionsOf(request));
  return sendNoContent(reply);
}

/**
 * A write through the gate (docs/decisions/1700-one-gate.md): 202 with the change request made
 * instead, and its address; else the write's answer, as `applied` sends it.
 */
export function sendGated<T, R>(
  reply: FastifyReply,
  outcome: Gated<T>,
  applied: (value: T) => R,
): R | ChangeRequest {
  if ('applied' in outcome) return applied(outcome.applied);
  reply.header('location', `/v1/change-requests/${outcome.request.id}`);
  return sendResource(reply, outcome.request, 202);
}

/** A gated write under the request's If-Match: what it wrote (with its ETag), or 202 with a change request. */
export async function sendGatedWrite<T extends { version: number }>(
  request: FastifyRequest,
  reply: FastifyReply,
  write: (actor: Actor, options: WriteOptions) => Promise<Gated<T>>,
): Promise<T | ChangeRequest> {
  return sendGated(reply, await write(actorOf(request), writeOptionsOf(request)), (written) =>
    sendResource(reply, written),
  );
}

/** A gated delete under the request's If-Match: 204, or 202 with a change request. */
export async function sendGatedDelete(
  request: FastifyRequest,
  reply: FastifyReply,
  remove: (actor: Actor, options: WriteOptions) => Promise<Gated<void>>,
): Promise<FastifyReply | ChangeRequest> {
  return sendGated(reply, await remove(actorOf(request), writeOptionsOf(request)), () =>
    sendNoContent(reply),
  );
}

/** One page of a list, with a Link header to the next when more remain. */
export async function sendListed<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  list: (actor: Actor) => Promise<Page<T>>,
): Promise<T[]> {
  return sendPage(request, reply, await list(actorOf(request)), (item) => item);
}

/** A create: 201 with the new resource, its address (`locationOf` it) and its version as the ETag. */
export async function sendMade<T extends { version: number }>(
  request: FastifyRequest,
  reply: FastifyReply,
  create: (actor: Actor) => Promise<T>,
  locationOf: (created: T) => string,
): Promise<T> {
  const created = await create(actorOf(request));
  return sendCreated(reply, locationOf(created), created);
}
