import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { FlagService } from '../services/flags/flag-service.ts';
import { flagIdInPath } from './request-helpers.ts';
import { FLAG, PROJECT } from './route-access.ts';
import { FlagIdParams, ProjectFlagParams } from './schemas/common.ts';

/**
 * One way a route names a flag: by its id (`/flags/:flagId`), or by project and key (or id) as
 * reading a flag names it (`/projects/:projectId/flags/:flagKey`). A change to a flag, and its
 * scheduled changes, are routed under both.
 */
export interface FlagNaming {
  readonly url: string;
  readonly params: typeof FlagIdParams | typeof ProjectFlagParams;
  /** Whose rights the route checks: the flag's, or its project's (found from the path). */
  readonly target: typeof FLAG | typeof PROJECT;
  /** Named by key (so the OpenAPI document says a key or an id will do). */
  readonly byKey: boolean;
  /** The id of the flag the request's path names. */
  readonly idOf: (request: FastifyRequest) => Promise<string>;
}

/** The two namings of a flag, the flag by key found as reading it finds it. */
export const flagNamings = (flags: Pick<FlagService, 'get'>): readonly FlagNaming[] => [
  {
    url: '/flags/:flagId',
    params: FlagIdParams,
    target: FLAG,
    byKey: false,
    idOf: async (request) => (request.params as Static<typeof FlagIdParams>).flagId,
  },
  {
    url: '/projects/:projectId/flags/:flagKey',
    params: ProjectFlagParams,
    target: PROJECT,
    byKey: true,
    idOf: (request) => flagIdInPath(flags, request),
  },
];
