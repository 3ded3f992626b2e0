import type { FastifyPluginAsync, FastifyTypeProvider, RawServerDefault } from 'fastify';
import type { Static, TSchema } from 'typebox';

/**
 * Types each request from its TypeBox schema. Replies are typed by the domain, not the wire
 * schema: the schema's job there is the fast serializer and the OpenAPI document.
 */
export interface RequestTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: unknown;
}

export type RoutesPlugin<Options extends Record<string, unknown>> = FastifyPluginAsync<
  Options,
  RawServerDefault,
  RequestTypeProvider
>;

/** The instance a routes plugin receives, for the functions it splits its routes into. */
export type RoutesApp = Parameters<RoutesPlugin<Record<string, never>>>[0];
