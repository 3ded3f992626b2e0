import type {
  FastifyContextConfig,
  FastifyReply,
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
import type { RequestTypeProvider, RoutesApp, RoutesPlugin } from './type-provider.ts';

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

/** The service call that differs between routes of one shape: on behalf of the actor, for the request. */
type Act<S extends FastifySchema, T> = (
  actor: Actor,
  request: TypedRequest<S>,
  options: WriteOptions,
) => Promise<T>;

/** What every route of a shape does around its call (request-helpers.ts: sendRead, sendWritten, …). */
type Send<T, R> = (
  request: FastifyRequest,
  reply: FastifyReply,
  act: (actor: Actor, options: WriteOptions) => Promise<T>,
) => Promise<R>;

function register<S extends FastifySchema, T, R>(
  app: RoutesApp,
  method: 'get' | 'post' | 'patch' | 'delete',
  url: string,
  options: RouteOptions<S>,
  send: Send<T, R>,
  act: Act<S, T>,
): void {
  app[method](url, options, (request, reply) =>
    answered(send(request, reply, (actor, writeOptions) => act(actor, request, writeOptions))),
  );
}

// A read or create names no version: what it acts under is what a write would, unused.
const NO_VERSION: WriteOptions = { ifMatch: undefined };

const reading =
  <T, R>(
    send: (request: FastifyRequest, reply: FastifyReply, read: (actor: Actor) => Promise<T>) => Promise<R>,
  ): Send<T, R> =>
  (request, reply, act) =>
    send(request, reply, (actor) => act(actor, NO_VERSION));

/** GET of one resource, answered with its version as the ETag. */
export const readRoute = <const S extends FastifySchema, T extends Versioned>(
  app: RoutesApp,
  url: string,
  options: RouteOptions<S>,
  read: Act<S, T>,
): void => register(app, 'get', url, options, reading(sendRead<T>), read);

/** GET of one page of a list, with a Link header to the next when more remain. */
export const listRoute = <const S extends FastifySchema, T>(
  app: RoutesApp,
  url: string,
  options: RouteOptions<S>,
  list: Act<S, Page<T>>,
): void => register(app, 'get', url, options, reading(sendListed<T>), list);

/** POST that creates: 201 with the new resource, its address (`locationOf` it) and its ETag. */
export function createRoute<const S extends FastifySchema, T extends Versioned>(
  app: RoutesApp,
  url: string,
  options: RouteOptions<S>,
  create: Act<S, T>,
  locationOf: (created: T, request: TypedRequest<S>) => string,
): void {
  app.post(url, options, (request, reply) =>
    answered(
      sendMade(
        request,
        reply,
        (actor) => create(actor, request, NO_VERSION),
        (made) => locationOf(made, request),
      ),
    ),
  );
}

/** A write (PATCH, or a POST that acts) under the request's If-Match: what it wrote, with its new ETag. */
export const writeRoute = <const S extends FastifySchema, T extends Versioned>(
  app: RoutesApp,
  method: 'patch' | 'post',
  url: string,
  options: RouteOptions<S>,
  write: Act<S, T>,
): void => register(app, method, url, options, sendWritten<T>, write);

/** DELETE under the request's If-Match: 204. */
export const deleteRoute = <const S extends FastifySchema>(
  app: RoutesApp,
  url: string,
  options: RouteOptions<S>,
  remove: Act<S, void>,
): void => register(app, 'delete', url, options, sendDeleted, remove);

/** A write through the approval gate under the request's If-Match: what it wrote, or 202 with a change request. */
export const gatedWriteRoute = <const S extends FastifySchema, T extends Versioned>(
  app: RoutesApp,
  method: 'patch' | 'post',
  url: string,
  options: RouteOptions<S>,
  write: Act<S, Gated<T>>,
): void => register(app, method, url, options, sendGatedWrite<T>, write);

/** A delete through the approval gate under the request's If-Match: 204, or 202 with a change request. */
export const gatedDeleteRoute = <const S extends FastifySchema>(
  app: RoutesApp,
  url: string,
  options: RouteOptions<S>,
  remove: Act<S, Gated<void>>,
): void => register(app, 'delete', url, options, sendGatedDelete, remove);

/** A group of routes: registers its own, calling the plugin's use cases. */
export type RouteGroup<Services> = (app: RoutesApp, services: Services) => void;

/**
 * A routes plugin made of its groups of routes (each one job: reads, writes, one naming…),
 * registered in order.
 */
export const routeGroups =
  <Services>(...groups: readonly RouteGroup<Services>[]): RoutesPlugin<{ services: Services }> =>
  async (app, { services }) => {
    for (const group of groups) group(app, services);
  };
