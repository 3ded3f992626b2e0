import { Type } from 'typebox';
import { DEFAULT_ENVIRONMENT } from '../../domain/project.ts';
import type { Services } from '../../services/services.ts';
import { actorOf } from '../request-helpers.ts';
import { Closed, Key, problems } from '../schemas/common.ts';
import type { RoutesPlugin } from '../type-provider.ts';
import { EvaluationResultSchema } from './evaluation.ts';

/**
 * The playground's evaluation: the result applications get, plus what decided it. A separate
 * route, so the seed's evaluation response keeps its shape; it needs the viewer role, since
 * rule ids and targets are what a viewer may read anyway.
 */
export const explainRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.post(
    '/projects/:projectId/flags/:flagKey/explain',
    {
      schema: {
        tags: ['Evaluation'],
        summary: 'Evaluate a flag and say which rule or individual target decided (viewer)',
        params: Closed({ projectId: Type.String(), flagKey: Type.String() }),
        body: Closed({
          environment: Type.Optional(Key),
          attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        }),
        response: {
          200: Type.Object({
            ...EvaluationResultSchema.properties,
            ruleId: Type.Union([Type.String(), Type.Null()], {
              description: 'The targeting rule that matched, if one did.',
            }),
            targetMatched: Type.Boolean({ description: "The user is in the flag's individual targets." }),
            failedPrerequisite: Type.Union([Type.String(), Type.Null()], {
              description: 'The prerequisite flag that did not serve a required variant, if one did not.',
            }),
          }),
          ...problems(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const detail = await services.evaluation.explain(
        actorOf(request),
        request.params.projectId,
        request.params.flagKey,
        request.body.attributes ?? {},
        request.body.environment ?? DEFAULT_ENVIRONMENT,
      );
      return {
        key: detail.key,
        type: detail.type,
        value: detail.value,
        reason: detail.reason,
        variant: detail.variant,
        ruleId: detail.ruleId ?? null,
        targetMatched: detail.targetMatched ?? false,
        failedPrerequisite: detail.failedPrerequisite ?? null,
      };
    },
  );
};
