import type { FastifyContextConfig } from 'fastify';
import type { TSchema } from 'typebox';
import { problems } from './schemas/common.ts';

/**
 * What a route takes and answers: its path parameters, query string and body (each optional),
 * and its success bodies by status (200, 201, 202).
 */
export interface RouteParts {
  /** More than the summary says, in the OpenAPI document. */
  readonly description?: string;
  readonly params?: TSchema;
  readonly querystring?: TSchema;
  readonly body?: TSchema;
  /** The route's rules: who may call it, its rate limit, browser exposure (decision 1782). */
  readonly config?: FastifyContextConfig;
  readonly [status: number]: TSchema;
}

type Taken<P> = Pick<P, Extract<keyof P, 'description' | 'params' | 'querystring' | 'body'>>;

/**
 * The route options writer for a group of routes under `tags`: each route's schema is what the
 * OpenAPI document shows, the tags and a summary, the problems (application/problem+json) it
 * may answer with by status, and what it takes and answers; and its rules (`config`: who may
 * call it, its rate limit and browser exposure, read once when the route is registered;
 * decision 1782).
 */
export const describeRoutes =
  (tags: string[]) =>
  <const P extends RouteParts>(summary: string, problemStatuses: readonly number[], parts: P) => {
    const { description, params, querystring, body, config = {}, ...answers } = parts;
    const taken = {
      ...(description === undefined ? {} : { description }),
      ...(params === undefined ? {} : { params }),
      ...(querystring === undefined ? {} : { querystring }),
      ...(body === undefined ? {} : { body }),
    } as Taken<P>;
    return {
      schema: { tags, summary, ...taken, response: { ...answers, ...problems(...problemStatuses) } },
      config,
    };
  };
