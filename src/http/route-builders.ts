import type {
  FastifyContextConfig,
  FastifyRequest,
  FastifySchema,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { Page } from '../domain/page.ts';
import type { Actor } from '../services/core/actor.ts';
import type { Gated } from '../services/core/write-gate.ts';
import {
  sendDeleted,
  sendGatedDelete,
  sendGatedWrite,
  sendListed,
  sendMade,
  sendRead,
  sendWritten,
  type WriteOptions,
} from './request-helpers.ts';
import type { RequestTypeProvider, RoutesApp } from './type-provider.ts';

/**
 * Builders of the common route shapes: a route names its path, its options (`describeRoutes`) and
 * the one service call that differs; the builder does what every such route does (the actor,
 * If-Match, the ETag, the Link header, the status; request-helpers.ts).
 */

/** A request typed by its route's schema, as a handler Fastify types from that schema receives it. */
export type TypedRequest<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  S,
  RequestTypeProvider
>;

/** What `describeRoutes` makes of a route: its schema and its rules. */
export interface RouteOptions<S extends FastifySchema> {
  readonly schema: S;
  readonly config: FastifyContextConfig;
}

type Versioned = { version: number };

// Replies are typed by the domain, not the wire schema (type-provider.ts): for a route's own schema
// Fastify resolves the handler's answer to anything, but not through a schema still generic here,
// so the builders hand it their answer (a promise Fastify awaits) untyped.
const answered = <R>(answer: Promise<R>): never => answer as never;

/** GET of one resource, answered with its version as the ETag. */
export function readRoute<const S extends FastifySchema, T extends Versioned>(
  app: RoutesApp,
  url: string,
  options: RouteOptions<S>,
  read: (actor: Actor, request: TypedRequest<S>) => Promise<T>,
): void {
  app.get(url, options, (request, reply) =>
    answered(sendRead(request, reply, (actor) => read(actor, request))),
  );
}

/** GET of one page of a list, with a Link header to the next when more remain. */
export function listRoute<const S extends FastifySchema, T>(
  app: RoutesApp,
  url: string,
  options: RouteOptions<S>,
  list: (actor: Actor, request: TypedRequest<S>) => Promise<Page<T>>,
): void {
  app.get(url, options, (request, reply) =>
    answered(sendListed(request, reply, (actor) => list(actor, request))),
  );
}

/** POST that creates: 201 with the new resource, its address (`locationOf` it) and its ETag. */
export function createRoute<const S extends FastifySchema, T extends Versioned>(
  app: RoutesApp,
  url: string,
  options: RouteOptions<S>,
  create: (actor: Actor, request: TypedRequest<S>) => Promise<T>,
  locationOf: (created: T, request: TypedRequest<S>) => string,
): void {
  app.post(url, options, (request, reply) =>
    answered(
      sendMade(
        request,
        reply,
        (actor) => create(actor, request),
        (created) => locationOf(created, request),
      ),
    ),
  );
}

/** A write (PATCH, or a POST that acts) under the request's If-Match: what it wrote, with its new ETag. */
export function writeRoute<const S extends FastifySchema, T extends Versioned>(
  app: RoutesApp,
  method: 'patch' | 'post',
  url: string,
  options: RouteOptions<S>,
  write: (actor: Actor, request: TypedRequest<S>, options: WriteOptions) => Promise<T>,
): void {
  app[method](url, options, (request, reply) =>
    answered(sendWritten(request, reply, (actor, writeOptions) => write(actor, request, writeOptions))),
  );
}

/** DELETE under the request's If-Match: 204. */
export function deleteRoute<const S extends FastifySchema>(
  app: RoutesApp,
  url: string,
  options: RouteOptions<S>,
  remove: (actor: Actor, request: TypedRequest<S>, options: WriteOptions) => Promise<void>,
): void {
  app.delete(url, options, (request, reply) =>
    answered(sendDeleted(request, reply, (actor, writeOptions) => remove(actor, request, writeOptions))),
  );
}

/** A write through the approval gate under the request's If-Match: what it wrote, or 202 with a change request. */
export function gatedWriteRoute<const S extends FastifySchema, T extends Versioned>(
  app: RoutesApp,
  method: 'patch' | 'post',
  url: string,
  options: RouteOptions<S>,
  write: (actor: Actor, request: TypedRequest<S>, options: WriteOptions) => Promise<Gated<T>>,
): void {
  app[method](url, options, (request, reply) =>
    answered(sendGatedWrite(request, reply, (actor, writeOptions) => write(actor, request, writeOptions))),
  );
}

/** A delete through the approval gate under the request's If-Match: 204, or 202 with a change request. */
export function gatedDeleteRoute<const S extends FastifySchema>(
  app: RoutesApp,
  url: string,
  options: RouteOptions<S>,
  remove: (actor: Actor, request: TypedRequest<S>, options: WriteOptions) => Promise<Gated<void>>,
): void {
  app.delete(url, options, (request, reply) =>
    answered(sendGatedDelete(request, reply, (actor, writeOptions) => remove(actor, request, writeOptions))),
  );
}
