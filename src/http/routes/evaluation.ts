import { type Static, Type } from 'typebox';
import { CONTEXT_MAX_BYTES, contextLimitBreach } from '../../domain/context-limits.ts';
import { validationFailed } from '../../domain/errors.ts';
import type { EvaluationContext } from '../../domain/evaluation-result.ts';
import { isPlainObject } from '../../domain/json.ts';
import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from '../../domain/json-depth.ts';
import { EvaluationResultSchema } from '../../domain/schemas/evaluation-schemas.ts';
import type { Services } from '../../services/services.ts';
import { evaluationJson, JSON_TYPE } from '../evaluation-json.ts';
import { actorOf } from '../request-helpers.ts';
import {
  access,
  bodyEnvironment,
  EVALUATED_PROJECT,
  QUERY_ENVIRONMENT,
  type RouteAccess,
} from '../route-access.ts';
import { routeGroups } from '../route-builders.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, Key } from '../schemas/common.ts';
import type { RoutesApp } from '../type-provider.ts';

const describe = describeRoutes(['Evaluation']);

// Evaluation routes: any key of the project, the evaluation budget, callable from browsers
// (docs/product.md §4.1, §6); the environment from `?environment=` or from the body.
const evaluation = (more: Omit<RouteAccess, 'role' | 'target' | 'rateLimit'>) => ({
  browser: true,
  ...access('evaluator', EVALUATED_PROJECT, { ...more, rateLimit: 'evaluation' }),
});
const BY_QUERY = evaluation({ environments: QUERY_ENVIRONMENT });
const BY_BODY = evaluation({ body: bodyEnvironment });

const Scope = {
  environment: Type.Optional(Key),
  project: Type.Optional(
    Type.String({ description: 'Project key or id; required with an organisation-wide key.' }),
  ),
};
const Attributes = Type.Record(Type.String(), Type.Unknown());

/** `attributes` arrives as JSON text in the query string: it must parse to an object of at most 8 KiB. */
function parseAttributes(text: string | undefined): EvaluationContext {
  if (text === undefined) return {};
  const fail = (message: string) =>
    validationFailed(`attributes ${message}.`, [{ path: 'querystring:/attributes', message }]);
  // A UTF-16 code unit takes at most 3 bytes in UTF-8: short texts need no count.
  if (text.length > CONTEXT_MAX_BYTES / 3 && Buffer.byteLength(text) > CONTEXT_MAX_BYTES)
    throw fail('must be at most 8 KiB');
  if (jsonTextNestsDeeperThan(text)) throw fail(`must nest at most ${MAX_JSON_DEPTH} levels deep`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw fail('must be JSON text');
  }
  if (!isPlainObject(parsed)) throw fail('must be a JSON object');
  return parsed;
}

/** Attributes from a JSON body: bounded in depth first, so that measuring their size cannot overflow the stack. */
function checkAttributesSize(attributes: EvaluationContext | undefined): EvaluationContext {
  if (attributes === undefined) return {};
  const breach = contextLimitBreach(attributes);
  if (breach !== undefined)
    throw validationFailed(`attributes ${breach}.`, [{ path: '/attributes', message: breach }]);
  return attributes;
}

/** What an evaluation asked with a body takes: the project from its query, the environment and attributes from its body. */
const QueryProject = Closed({ project: Scope.project });
const BodyQuestion = Closed({ environment: Scope.environment, attributes: Type.Optional(Attributes) });

/** The context and scope of an evaluation asked with a body. */
function askedWithBody(request: {
  readonly query: Static<typeof QueryProject>;
  readonly body: Static<typeof BodyQuestion>;
}) {
  return {
    context: checkAttributesSize(request.body.attributes),
    scope: { project: request.query.project, environment: request.body.environment },
  };
}

export const evaluationRoutes = routeGroups<Services>(evaluationByQuery, evaluationsByBody);

/** One flag, the user's attributes in the query string: the fast path (decision 0207). */
function evaluationByQuery(app: RoutesApp, services: Services): void {
  app.get(
    '/flags/:flagKey',
    describe('Evaluate a flag for a user', {
      params: Closed({ flagKey: Type.String() }),
      querystring: Closed({
        ...Scope,
        attributes: Type.Optional(Type.String({ description: 'User attributes as JSON text (≤ 8 KiB).' })),
      }),
      200: EvaluationResultSchema,
      config: BY_QUERY,
    }),
    // Not async: once the node is loaded, the answer is computed without a promise (decision 0207),
    // and sent as the result's JSON text made when it was first served (decision 1791).
    (request, reply) => {
      const { attributes, project, environment } = request.query;
      const context = parseAttributes(attributes);
      const scope = { project, environment };
      const { evaluation } = services;
      const actor = actorOf(request);
      const flagKey = request.params.flagKey;
      const target = evaluation.targetInMemory(actor, scope);
      reply.type(JSON_TYPE);
      if (target !== undefined) return evaluationJson(evaluation.evaluateIn(target, flagKey, context));
      return evaluation
        .target(actor, scope)
        .then((found) => evaluationJson(evaluation.evaluateIn(found, flagKey, context)));
    },
  );
}

/** One flag, or every one, for a user whose attributes come in the body. */
function evaluationsByBody(app: RoutesApp, services: Services): void {
  app.post(
    '/flags/:flagKey/evaluate',
    describe('Evaluate a flag for a user whose attributes are too large for a URL', {
      params: Closed({ flagKey: Type.String() }),
      querystring: QueryProject,
      body: BodyQuestion,
      200: EvaluationResultSchema,
      config: BY_BODY,
    }),
    async (request, reply) => {
      const { context, scope } = askedWithBody(request);
      const detail = await services.evaluation.evaluate(
        actorOf(request),
        request.params.flagKey,
        context,
        scope,
      );
      return reply.type(JSON_TYPE).send(evaluationJson(detail));
    },
  );

  app.post(
    '/evaluate',
    describe('Evaluate every non-archived flag (or the listed ones) for a user', {
      querystring: QueryProject,
      body: Closed({
        ...BodyQuestion.properties,
        flags: Type.Optional(Type.Array(Type.String(), { maxItems: 1000 })),
      }),
      200: Type.Object({ flags: Type.Array(EvaluationResultSchema) }),
      problems: [404],
      config: BY_BODY,
    }),
    async (request, reply) => {
      const { context, scope } = askedWithBody(request);
      const results = await services.evaluation.evaluateAll(
        actorOf(request),
        context,
        scope,
        request.body.flags,
      );
      return reply.type(JSON_TYPE).send(`{"flags":[${results.map(evaluationJson).join(',')}]}`);
    },
  );
}
