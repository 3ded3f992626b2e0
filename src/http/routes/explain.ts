import { Type } from 'typebox';
import { epochSeconds } from '../../domain/clock.ts';
import { DEFAULT_ENVIRONMENT } from '../../domain/project.ts';
import { isFailure, reevaluateIn, toOfrepResult } from '../../openfeature/ofrep/ofrep-evaluation.ts';
import type { Services } from '../../services/services.ts';
import { wire } from '../evaluation-json.ts';
import { actorOf } from '../request-helpers.ts';
import { access, bodyEnvironment, PROJECT } from '../route-access.ts';
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
      config: access('viewer', PROJECT, { body: bodyEnvironment }),
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
      const attributes = request.body.attributes ?? {};
      const environment = request.body.environment ?? DEFAULT_ENVIRONMENT;
      const { projectId, flagKey } = request.params;
      const detail = await services.evaluation.explain(actor, projectId, flagKey, attributes, environment);
      // The playground shows where OFREP answers otherwise (decision 0606), decided by OFREP's own rule.
      const { compiled } = await services.evaluation.target(actor, { project: projectId, environment });
      const ofrep = toOfrepResult(detail, attributes, reevaluateIn(compiled, epochSeconds(services.clock)));
      return {
        ...wire(detail),
        ruleId: detail.ruleId ?? null,
        targetMatched: detail.targetMatched ?? false,
        failedPrerequisite: detail.failedPrerequisite ?? null,
        ofrepErrorCode:
          isFailure(ofrep) && ofrep.errorCode === 'TARGETING_KEY_MISSING' ? ofrep.errorCode : null,
      };
    },
  );
};
