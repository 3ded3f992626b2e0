import type { FastifyContextConfig } from 'fastify';
import type { TSchema } from 'typebox';
import { ALL, ANY, access, PROJECT } from './route-access.ts';
import { ProjectParams, problems } from './schemas/common.ts';

/**
 * What a route takes and answers: its path parameters, query string, headers and body (each
 * optional), and its success bodies by status (200, 201, 202, 304).
 */
export interface RouteParts {
  /** More than the summary says, in the OpenAPI document. */
  readonly description?: string;
  readonly params?: TSchema;
  readonly querystring?: TSchema;
  readonly headers?: TSchema;
  readonly body?: TSchema;
  /** The route's rules: who may call it, its rate limit, browser exposure (decision 1782). */
  readonly config?: FastifyContextConfig;
  /**
   * The problems the route answers beyond those that follow from what it takes and its access
   * rule (`problemStatuses`): a conflict (409), a stale If-Match (412), a project named in its
   * query or body that does not exist (404).
   */
  readonly problems?: readonly number[];
  readonly [status: number]: TSchema;
}

/**
 * What creating a flag, segment or environment in a project takes and may answer besides its
 * body and result (services/core/keyed-resource.ts): an editor of the project may, and it reaches
 * every environment; 409 when the key is taken.
 */
export const CREATE_IN_PROJECT = {
  params: ProjectParams,
  problems: [409],
  config: access('editor', PROJECT, { environments: ALL }),
};

type Taken<P> = Pick<P, Extract<keyof P, 'description' | 'params' | 'querystring' | 'headers' | 'body'>>;

/**
 * The problems every route of a kind can answer (docs/product.md §5; decision 1835): what it takes
 * may be malformed (400), a path names what may not exist (404), a body may be too large (413) or
 * not JSON (415); a route with an access rule authenticates (401), draws on a rate limit and on
 * the caller's failed authentications (429), and refuses callers (403) unless the rule admits
 * every authenticated one. The route's own `problems` are added to them.
 */
export function problemStatuses(parts: RouteParts): number[] {
  const { params, querystring, body, config = {} } = parts;
  const access = config.access === 'public' ? undefined : config.access;
  const admitsEveryone =
    access?.role === 'evaluator' &&
    access.target === ANY &&
    access.environments === undefined &&
    access.body === undefined;
  const statuses = new Set([
    ...(params !== undefined || querystring !== undefined || body !== undefined ? [400] : []),
    ...(params === undefined ? [] : [404]),
    ...(body === undefined ? [] : [413, 415]),
    ...(access === undefined ? [] : [401, 429]),
    ...(access === undefined || admitsEveryone ? [] : [403]),
    ...(parts.problems ?? []),
  ]);
  return [...statuses].sort((a, b) => a - b);
}

/**
 * The route options writer for a group of routes under `tags`: each route's schema is what the
 * OpenAPI document shows, the tags and a summary, what it takes, its answers and the problems
 * (application/problem+json) it may answer with by status; and its rules (`config`: who may call
 * it, its rate limit and browser exposure, read once when the route is registered; decision 1782),
 * the group's `rules` where the route states none.
 */
export const describeRoutes =
  (tags: string[], rules: FastifyContextConfig = {}) =>
  <const P extends RouteParts>(summary: string, parts: P) => {
    const {
      description,
      params,
      querystring,
      headers,
      body,
      config = rules,
      problems: _ownProblems,
      ...answers
    } = parts;
    const taken = {
      ...(description === undefined ? {} : { description }),
      ...(params === undefined ? {} : { params }),
      ...(querystring === undefined ? {} : { querystring }),
      ...(headers === undefined ? {} : { headers }),
      ...(body === undefined ? {} : { body }),
    } as Taken<P>;
    return {
      schema: {
        tags,
        summary,
        ...taken,
        response: { ...answers, ...problems(...problemStatuses({ ...parts, config })) },
      },
      config,
    };
  };
