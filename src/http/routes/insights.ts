import { Type } from 'typebox';
import {
  FlagInsightsSchema,
  type InsightStep,
  TopFlagsSchema,
} from '../../domain/schemas/insights-schemas.ts';
import type { Services } from '../../services/services.ts';
import { STEPS } from '../../services/serving/insights-service.ts';
import { actorOf } from '../request-helpers.ts';
import { access, FLAG, PROJECT } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, FlagIdParams, Key, OneOf, ProjectParams } from '../schemas/common.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Insights']);

/** The service's bucket widths, each one the contract names: a new width fails to compile until it is named there. */
const STEP_NAMES: readonly InsightStep[] = Object.keys(STEPS) as (keyof typeof STEPS)[];

export const insightsRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/flags/:flagId/insights',
    describe('Evaluations of a flag over time, per variant and reason (counted per minute, kept 30 days)', {
      params: FlagIdParams,
      querystring: Closed({
        environment: Type.Optional(Key),
        from: Type.Optional(Type.String({ description: 'RFC 3339; default 24 hours before `to`.' })),
        to: Type.Optional(Type.String({ description: 'RFC 3339; default now.' })),
        step: Type.Optional(
          OneOf(STEP_NAMES, {
            description: 'Bucket width; default the smallest giving at most 200 buckets.',
          }),
        ),
      }),
      200: FlagInsightsSchema,
      config: access('viewer', FLAG),
    }),
    async (request) => services.insights.series(actorOf(request), request.params.flagId, request.query),
  );

  app.get(
    '/projects/:projectId/insights/top-flags',
    describe("A project's most evaluated flags in an environment", {
      params: ProjectParams,
      querystring: Closed({
        environment: Type.Optional(Key),
        days: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, default: 1 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
      }),
      200: TopFlagsSchema,
      config: access('viewer', PROJECT),
    }),
    async (request) =>
      services.insights.topFlags(actorOf(request), request.params.projectId, {
        environment: request.query.environment,
        days: request.query.days ?? 1,
        limit: request.query.limit ?? 10,
      }),
  );
};
