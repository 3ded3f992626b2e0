import type { FastifyContextConfig } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Page, PageRequest } from '../domain/page.ts';
import type { Actor } from '../services/core/actor.ts';
import { pageOf } from './request-helpers.ts';
import { createRoute, deleteRoute, listRoute, readRoute, writeRoute } from './route-builders.ts';
import type { describeRoutes } from './route-schema.ts';
import { Closed, Key, ProjectParams, paged } from './schemas/common.ts';
import type { RoutesApp } from './type-provider.ts';

/** What a project's keyed resource does (metrics, release templates, experiments: services/…). */
export interface KeyedService<T, Create, Patch> {
  get(actor: Actor, projectIdOrKey: string, key: string): Promise<T>;
  create(actor: Actor, projectIdOrKey: string, input: Create): Promise<T>;
  patch(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    patch: Patch,
    ifMatch: number | undefined,
  ): Promise<T>;
  delete(actor: Actor, projectIdOrKey: string, key: string, ifMatch: number | undefined): Promise<void>;
}

/**
 * A resource a project keeps by key, in no environment in particular: its collection
 * (`/projects/:projectId/<plural>`) and each item in it (`…/:<key>`), read by viewers of the
 * project and written by its editors; a create answers 201 with the item's address, a patch or
 * delete honours If-Match (412).
 */
export interface KeyedResource<T, CreateBody extends TSchema, PatchBody extends TSchema> {
  readonly describe: ReturnType<typeof describeRoutes>;
  /** The collection's path: `/projects/:projectId/metrics`. */
  readonly collection: string;
  /** The item's key parameter: `metricKey`. */
  readonly key: string;
  readonly schema: TSchema;
  readonly bodies: { readonly create: CreateBody; readonly patch: PatchBody };
  /** Each route's summary in the OpenAPI document. */
  readonly summaries: {
    readonly get: string;
    readonly create: string;
    readonly patch: string;
    readonly delete: string;
  };
  readonly rules: {
    readonly read: FastifyContextConfig;
    readonly write: FastifyContextConfig;
    /** Where creating is ruled otherwise than writing (the environment its body names). */
    readonly create?: FastifyContextConfig;
  };
  /** The resource has states that refuse a patch or delete (409), besides a stale If-Match. */
  readonly conflicts?: boolean;
  readonly service: KeyedService<T, Static<CreateBody>, Static<PatchBody>>;
}

/** A keyed resource its service lists a page at a time, in key order. */
export interface ListedResource<T, CreateBody extends TSchema, PatchBody extends TSchema>
  extends KeyedResource<T, CreateBody, PatchBody> {
  readonly listSummary: string;
  readonly service: KeyedService<T, Static<CreateBody>, Static<PatchBody>> & {
    list(actor: Actor, projectIdOrKey: string, page: PageRequest): Promise<Page<T>>;
  };
}

type Keyed = { key: string; version: number };

/** The item's path parameters: the project and the key. */
export const keyedParams = <K extends string>(key: K) =>
  Closed({ ...ProjectParams.properties, ...({ [key]: Key } as Record<K, typeof Key>) });

/** Registers a keyed resource's list, create, get, patch and delete. */
export function keyedRoutes<T extends Keyed, C extends TSchema, P extends TSchema>(
  app: RoutesApp,
  resource: ListedResource<T, C, P>,
): void {
  const { describe, collection, schema, rules, service } = resource;
  listRoute(
    app,
    collection,
    describe(resource.listSummary, { params: ProjectParams, ...paged(schema), config: rules.read }),
    (actor, request) => service.list(actor, request.params.projectId, pageOf(request.query)),
  );
  keyedCreateAndItemRoutes(app, resource);
}

/** Registers a keyed resource's create, get, patch and delete (for one that lists itself otherwise). */
export function keyedCreateAndItemRoutes<T extends Keyed, C extends TSchema, P extends TSchema>(
  app: RoutesApp,
  resource: KeyedResource<T, C, P>,
): void {
  const { describe, collection, schema, summaries, rules, service } = resource;
  createRoute(
    app,
    collection,
    describe(summaries.create, {
      params: ProjectParams,
      body: resource.bodies.create,
      201: schema,
      problems: [409],
      config: rules.create ?? rules.write,
    }),
    (actor, request) => service.create(actor, request.params.projectId, request.body as Static<C>),
    (created, request) => `/v1${collection.replace(':projectId', request.params.projectId)}/${created.key}`,
  );
  keyedItemRoutes(app, resource);
}

function keyedItemRoutes<T extends Keyed, C extends TSchema, P extends TSchema>(
  app: RoutesApp,
  { describe, collection, key, schema, bodies, summaries, rules, conflicts, service }: KeyedResource<T, C, P>,
): void {
  const item = `${collection}/:${key}`;
  const params = keyedParams(key);
  // The item the path names, as its params schema checked it: a project and a key.
  const named = (request: { params: unknown }): [projectId: string, key: string] => {
    const path = request.params as Record<string, string>;
    return [path.projectId ?? '', path[key] ?? ''];
  };
  const problems = conflicts === true ? [409, 412] : [412];
  readRoute(
    app,
    item,
    describe(summaries.get, { params, 200: schema, config: rules.read }),
    (actor, request) => service.get(actor, ...named(request)),
  );
  writeRoute(
    app,
    'patch',
    item,
    describe(summaries.patch, { params, body: bodies.patch, 200: schema, problems, config: rules.write }),
    (actor, request, { ifMatch }) =>
      service.patch(actor, ...named(request), request.body as Static<P>, ifMatch),
  );
  deleteRoute(
    app,
    item,
    describe(summaries.delete, { params, problems, config: rules.write }),
    (actor, request, { ifMatch }) => service.delete(actor, ...named(request), ifMatch),
  );
}
