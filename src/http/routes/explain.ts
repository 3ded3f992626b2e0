import { Type } from 'typebox';
import { epochSeconds } from '../../domain/clock.ts';
import type { EvaluationContext, EvaluationDetail } from '../../domain/evaluation-result.ts';
import { DEFAULT_ENVIRONMENT } from '../../domain/project.ts';
import { ExplanationSchema, UserViewSchema } from '../../domain/schemas/evaluation-schemas.ts';
import {
  isFailure,
  type Reevaluate,
  reevaluateIn,
  toOfrepResult,
} from '../../openfeature/ofrep/ofrep-evaluation.ts';
import type { Services } from '../../services/services.ts';
import type { EvaluationTarget } from '../../services/serving/evaluation-service.ts';
import { wire } from '../evaluation-json.ts';
import { actorOf } from '../request-helpers.ts';
import { access, bodyEnvironment, PROJECT } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, Key } from '../schemas/common.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Evaluation']);

const ContextBody = Closed({
  environment: Type.Optional(Key),
  attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

/** The result with what decided it; the OFREP difference is decided by OFREP's own rule (decision 0606). */
function explanation(detail: EvaluationDetail, context: EvaluationContext, reevaluate: Reevaluate) {
  const ofrep = toOfrepResult(detail, context, reevaluate);
  return {
    ...wire(detail),
    ruleId: detail.ruleId ?? null,
    targetMatched: detail.targetMatched ?? false,
    failedPrerequisite: detail.failedPrerequisite ?? null,
    ofrepErrorCode: isFailure(ofrep) && ofrep.errorCode === 'TARGETING_KEY_MISSING' ? ofrep.errorCode : null,
  };
}

/**
 * The playground's evaluation and the user view's: the result applications get, plus what decided
 * it. Separate routes, so the seed's evaluation responses keep their shape; they need the viewer
 * role, since rule ids and targets are what a viewer may read anyway, and count nothing
 * (decision 1054).
 */
export const explainRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  const reevaluation = (target: EvaluationTarget) =>
    reevaluateIn(target.compiled, epochSeconds(services.clock));

  app.post(
    '/projects/:projectId/flags/:flagKey/explain',
    describe('Evaluate a flag and say which rule or individual target decided (viewer)', {
      params: Closed({ projectId: Type.String(), flagKey: Type.String() }),
      body: ContextBody,
      200: ExplanationSchema,
      config: access('viewer', PROJECT, { body: bodyEnvironment }),
    }),
    async (request) => {
      const actor = actorOf(request);
      const attributes = request.body.attributes ?? {};
      const environment = request.body.environment ?? DEFAULT_ENVIRONMENT;
      const { projectId, flagKey } = request.params;
      const detail = await services.evaluation.explain(actor, projectId, flagKey, attributes, environment);
      const target = await services.evaluation.target(actor, { project: projectId, environment });
      return explanation(detail, attributes, reevaluation(target));
    },
  );

  app.post(
    '/projects/:projectId/explain',
    describe('Evaluate every flag for one user and say what decided each: the user view (viewer)', {
      description:
        'Every non-archived flag in key order, as POST /v1/evaluate serves them, with the rule (as stored), individual target or prerequisite that decided each. Not counted in insights or metrics.',
      params: Closed({ projectId: Type.String() }),
      body: ContextBody,
      200: UserViewSchema,
      config: access('viewer', PROJECT, { body: bodyEnvironment }),
    }),
    async (request) => {
      const attributes = request.body.attributes ?? {};
      const environment = request.body.environment ?? DEFAULT_ENVIRONMENT;
      const { target, flags } = await services.evaluation.explainAll(
        actorOf(request),
        request.params.projectId,
        attributes,
        environment,
      );
      const reevaluate = reevaluation(target);
      return {
        environment,
        flags: flags.map(({ detail, name, rule }) => ({
          ...explanation(detail, attributes, reevaluate),
          name,
          rule:
            rule === undefined
              ? null
              : {
                  number: rule.number,
                  id: rule.rule.id,
                  ...(rule.rule.description === undefined ? {} : { description: rule.rule.description }),
                  matchAll: rule.rule.matchAll === true,
                  segments: rule.rule.segments,
                  conditions: rule.rule.conditions,
                },
        })),
      };
    },
  );
};
