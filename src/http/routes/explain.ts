import { Type } from 'typebox';
import { isFailure, reevaluateIn, toOfrepResult } from '../../openfeature/ofrep/ofrep-evaluation.ts';
import { accessProject } from '../../services/project-access.ts';
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
            ofrepErrorCode: Type.Union([Type.Literal('TARGETING_KEY_MISSING'), Type.Null()], {
              description:
                'What OFREP answers instead of this result for the same context, if it differs: TARGETING_KEY_MISSING when only a targetingKey was missing to split users.',
            }),
          }),
          ...problems(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const environment = request.body.environment ?? 'production';
      const project = await accessProject(
        services.store,
        actor.principal,
        request.params.projectId,
        'viewer',
        environment,
      );
      const scope = { project: project.id, environment };
      const attributes = request.body.attributes ?? {};
      const detail = await services.evaluation.evaluate(actor, request.params.flagKey, attributes, scope);
      // The playground shows where OFREP answers otherwise (issue 15): the same rule as OFREP's.
      const compiled = await services.evaluation.environmentFor(actor, scope);
      const ofrep = toOfrepResult(detail, attributes, reevaluateIn(compiled, Math.floor(Date.now() / 1000)));
      return {
        key: detail.key,
        type: detail.type,
        value: detail.value,
        reason: detail.reason,
        variant: detail.variant,
        ruleId: detail.ruleId ?? null,
        targetMatched: detail.targetMatched ?? false,
        failedPrerequisite: detail.failedPrerequisite ?? null,
        ofrepErrorCode:
          isFailure(ofrep) && ofrep.errorCode === 'TARGETING_KEY_MISSING' ? ofrep.errorCode : null,
      };
    },
  );
};
