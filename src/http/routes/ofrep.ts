import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { epochSeconds } from '../../domain/clock.ts';
import { DomainError, ERROR_CATALOGUE, type ErrorCode } from '../../domain/errors.ts';
import type { EvaluationContext } from '../../domain/evaluation-result.ts';
import { DEFAULT_ENVIRONMENT } from '../../domain/project.ts';
import { isFailure, mayFail, reevaluateIn, toOfrepResult } from '../../openfeature/ofrep/ofrep-evaluation.ts';
import {
  contextOf,
  flagNotFound,
  OfrepError,
  type OfrepErrorCode,
  type OfrepFailure,
  toOfrepSuccess,
} from '../../openfeature/ofrep/ofrep-wire.ts';
import type { ProjectChanges } from '../../plane/project-changes.ts';
import { awaitRevision } from '../../realtime/await-revision.ts';
import type { Realtime } from '../../realtime/realtime.ts';
import { hashSecret } from '../../services/core/secrets.ts';
import type { Services } from '../../services/services.ts';
import type { EvaluationScope, EvaluationTarget } from '../../services/serving/evaluation-service.ts';
import { compressBulkAnswer, sendWithEtag } from '../compressed-answers.ts';
import { JSON_TYPE, jsonPerResult } from '../evaluation-json.ts';
import { JSON_TOO_DEEP } from '../json-body.ts';
import { bearerSecret } from '../plugins/authentication.ts';
import { registerGuard } from '../plugins/guard.ts';
import type { Problem } from '../problem.ts';
import { publicOrigin } from '../public-origin.ts';
import { actorOf } from '../request-helpers.ts';
import type { RouteAccess } from '../route-access.ts';
import type { RoutesApp, RoutesPlugin } from '../type-provider.ts';
import { NUL_CHARACTER } from '../validation.ts';
import { EVENT_STREAM_PATH } from './ofrep-event-streams.ts';

const tags = ['OFREP'];
/**
 * A success's OFREP body as JSON text, made once per result (decision 1791), with its fields in
 * the order the route's response schema wrote them: the required ones (`key`, `reason`) first.
 */
export const ofrepSuccessJson = jsonPerResult((detail) => {
  const { key, reason, ...optional } = toOfrepSuccess(detail);
  return { key, reason, ...optional };
});

const Metadata = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]));
/** An OFREP success body; exported for the test that compares it with the text sent instead. */
export const OfrepSuccessSchema = Type.Object({
  key: Type.String(),
  value: Type.Optional(Type.Unknown({ description: 'Absent when the provider must use the code default.' })),
  reason: Type.String({
    enum: ['STATIC', 'TARGETING_MATCH', 'SPLIT', 'DEFAULT', 'DISABLED', 'PREREQUISITE_FAILED'],
  }),
  variant: Type.Optional(Type.String()),
  metadata: Type.Optional(Metadata),
});
const Failure = Type.Object({
  key: Type.Optional(Type.String()),
  errorCode: Type.String(),
  errorDetails: Type.Optional(Type.String()),
  metadata: Type.Optional(Metadata),
});
const EventStream = Type.Object({
  type: Type.Literal('sse'),
  url: Type.String({ description: 'Absolute; carries a signed token that expires. Do not log it.' }),
  inactivityDelaySec: Type.Integer(),
});
const RequestBody = Type.Unknown({
  description:
    '`{ "context": { "targetingKey": "…", … } }`. A missing context is the empty one; other fields are ignored.',
});
/**
 * Error bodies are documented, not serialised by schema: hooks outside this plugin answer with
 * problem+json first, which `problemToOfrep` rewrites, and a schema would strip it on the way.
 */
const AnyFailure = (description: string) =>
  Type.Unknown({ description: `${description}: { key, errorCode, errorDetails }.` });
const errors = {
  400: AnyFailure(
    'INVALID_CONTEXT, PARSE_ERROR, TARGETING_KEY_MISSING, or GENERAL (unknown project or environment)',
  ),
  401: AnyFailure('No valid API key'),
  403: AnyFailure('The key does not cover this project or environment'),
  429: AnyFailure('Rate limit exceeded; see Retry-After'),
};

/** The headers by which a request names its project (organisation-wide keys) and environment. */
export const PROJECT_HEADER = 'x-flagstaff-project';
export const ENVIRONMENT_HEADER = 'x-flagstaff-environment';

export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/**
 * docs/product.md §6: the environment a header names, else the key's own when it is bound to exactly one,
 * else production. A header naming an environment the key does not cover is refused (403),
 * rather than silently ignored.
 */
export function environmentOf(request: FastifyRequest): string {
  const principal = actorOf(request).principal;
  const bound = principal.environments?.length === 1 ? principal.environments[0] : undefined;
  return headerOf(request, ENVIRONMENT_HEADER) ?? bound ?? DEFAULT_ENVIRONMENT;
}

/** Who may evaluate over OFREP: any role, in the project of the header (or the key's own) and the environment above. */
export const OFREP_ACCESS: RouteAccess = {
  role: 'evaluator',
  target: (request) => ({ kind: 'project', idOrKey: headerOf(request, PROJECT_HEADER), evaluation: true }),
  environments: (request) => [environmentOf(request)],
  rateLimit: 'evaluation',
};

/** The evaluation's result, or undefined when the flag does not exist (OFREP's own 404 body). */
function unlessFlagMissing<T>(evaluate: () => T): T | undefined {
  try {
    return evaluate();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'flag_not_found') return undefined;
    throw error;
  }
}

function scopeOf(request: FastifyRequest): EvaluationScope {
  const principal = actorOf(request).principal;
  const project = headerOf(request, PROJECT_HEADER);
  if (project === undefined && principal.projectId === null) {
    throw new OfrepError(
      400,
      'GENERAL',
      'An organisation-wide key must name the project: send the header "X-Flagstaff-Project: <key or id>".',
    );
  }
  return { project, environment: environmentOf(request) };
}

/** How long a request prompted by an event waits for this node to catch up with the revision it names. */
const CATCH_UP_MS = 1000;
/** How long a hidden page keeps its stream before closing it (the providers' default too). */
const INACTIVITY_DELAY_SEC = 120;

/**
 * The OFREP `eventStreams` of a bulk response (docs/product.md §9): only for API keys, whose secret hash
 * signs the URL's token. Absolute, on FLAGSTAFF_PUBLIC_URL or the listening address (never the Host header).
 */
function eventStreamsFor(
  request: FastifyRequest,
  realtime: Realtime,
  publicUrl: string | undefined,
  projectId: string,
  environment: string,
) {
  const principal = actorOf(request).principal;
  const secret = bearerSecret(request);
  if (principal.type !== 'api_key' || secret === undefined) return undefined;
  const token = realtime.streamAccess.issue(principal.id, hashSecret(secret), projectId, environment);
  const url = `${publicOrigin(request, publicUrl)}${EVENT_STREAM_PATH}?token=${token}`;
  return [{ type: 'sse' as const, url, inactivityDelaySec: INACTIVITY_DELAY_SEC }];
}

/** What a Flagstaff error code becomes in OFREP's vocabulary; every status but 404 and 500 keeps its meaning. */
function failureFor(code: ErrorCode): { status: number; errorCode: OfrepErrorCode } {
  if (code === 'flag_not_found') return { status: 404, errorCode: 'FLAG_NOT_FOUND' };
  // OFREP's 404 means "no such flag"; a project or environment that does not exist is a bad request.
  if (code === 'not_found' || code === 'validation_failed') return { status: 400, errorCode: 'GENERAL' };
  return { status: ERROR_CATALOGUE[code].status, errorCode: 'GENERAL' };
}

function sendFailure(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  errorCode: OfrepErrorCode,
  errorDetails: string,
): FastifyReply {
  const key = (request.params as { key?: string } | undefined)?.key;
  const body: OfrepFailure = { ...(key === undefined ? {} : { key }), errorCode, errorDetails };
  if (status === 401) reply.header('www-authenticate', 'Bearer');
  return reply.code(status).type(JSON_TYPE).send(body);
}

function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof OfrepError) {
    return sendFailure(request, reply, error.status, error.errorCode, error.message);
  }
  if (error instanceof DomainError) {
    const { status, errorCode } = failureFor(error.code);
    return sendFailure(request, reply, status, errorCode, error.message);
  }
  if (error.code === NUL_CHARACTER) return sendFailure(request, reply, 400, 'INVALID_CONTEXT', error.message);
  if (error.statusCode === 400) {
    const details = error.code === JSON_TOO_DEEP ? error.message : 'The request body is not valid JSON.';
    return sendFailure(request, reply, 400, 'PARSE_ERROR', details);
  }
  if (error.statusCode === 413) {
    return sendFailure(request, reply, 413, 'GENERAL', 'The request body is larger than 1 MiB.');
  }
  if (error.statusCode === 415) {
    return sendFailure(request, reply, 415, 'GENERAL', 'Send JSON: Content-Type application/json.');
  }
  request.log.error({ err: error }, 'request failed');
  return reply
    .code(500)
    .type(JSON_TYPE)
    .send({ errorDetails: `Something went wrong on our side. Request id: ${request.id}.` });
}

/**
 * OFREP's clients expect `{ key, errorCode, errorDetails }`, not problem+json: errors that hooks
 * outside this plugin answer with (401 from authentication, 429 from the rate limit, …) are
 * rewritten on their way out, keeping their status and headers. A callback hook, not an async
 * one: it runs on every OFREP answer, and a promise per answer shows (decision 0207).
 */
function problemToOfrep(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload?: unknown) => void,
): void {
  const type = reply.getHeader('content-type');
  if (
    typeof type !== 'string' ||
    !type.startsWith('application/problem+json') ||
    typeof payload !== 'string'
  ) {
    done(null, payload);
    return;
  }
  const problem = JSON.parse(payload) as Problem;
  const { errorCode } = failureFor(problem.code);
  const key = (request.params as { key?: string } | undefined)?.key;
  reply.type(JSON_TYPE);
  const body: OfrepFailure | { errorDetails: string } =
    reply.statusCode >= 500
      ? { errorDetails: problem.detail }
      : { ...(key === undefined ? {} : { key }), errorCode, errorDetails: problem.detail };
  done(null, JSON.stringify(body));
}

/** What the OFREP routes are given. */
type OfrepOptions = {
  services: Services;
  realtime: Realtime;
  /** The plane's changes: a bulk evaluation told of a revision waits for it (decision 1780). */
  changes: ProjectChanges;
  publicUrl?: string | undefined;
};

/**
 * The OpenFeature Remote Evaluation Protocol (docs/product.md §6, reference/ofrep/openapi.yaml), mounted at
 * /ofrep/v1, with the same API keys and evaluation service as /v1.
 */
export const ofrepRoutes: RoutesPlugin<OfrepOptions> = async (app, options) => {
  registerGuard(app);
  app.setErrorHandler(handleError);
  app.addHook('onSend', problemToOfrep);
  singleEvaluationRoute(app, options.services);
  bulkEvaluationRoute(app, options);
};

function singleEvaluationRoute(app: RoutesApp, services: Services): void {
  app.post(
    '/evaluate/flags/:key',
    {
      config: { access: OFREP_ACCESS, browser: true },
      schema: {
        tags,
        summary: 'Evaluate one flag (OFREP)',
        description:
          'The environment is the X-Flagstaff-Environment header, else the API key’s own when it is bound to one, else production. An organisation-wide key names the project with X-Flagstaff-Project.',
        params: Type.Object({ key: Type.String() }),
        body: RequestBody,
        response: { 200: OfrepSuccessSchema, ...errors, 404: AnyFailure('FLAG_NOT_FOUND') },
      },
    },
    // Not async once the node is loaded, and a success is sent as the text made when the result
    // was first served (decisions 0207, 1791): the same path as GET /v1/flags/{key}. Never
    // compressed: a few hundred bytes cost more to compress than they save (decision 2001).
    (request, reply) => {
      const actor = actorOf(request);
      const scope = scopeOf(request);
      const { key } = request.params;
      const target = services.evaluation.targetInMemory(actor, scope);
      if (target !== undefined) return answer(services, reply, target, key, contextOf(request.body));
      return services.evaluation
        .target(actor, scope)
        .then((found) => answer(services, reply, found, key, contextOf(request.body)));
    },
  );
}

/** One flag's OFREP answer: its success text, or the failure object the route's schema writes. */
function answer(
  services: Services,
  reply: FastifyReply,
  target: EvaluationTarget,
  key: string,
  context: EvaluationContext,
) {
  const detail = unlessFlagMissing(() => services.evaluation.evaluateIn(target, key, context));
  if (detail === undefined) {
    reply.code(404);
    return flagNotFound(key);
  }
  if (!mayFail(detail, context)) {
    reply.type(JSON_TYPE);
    return ofrepSuccessJson(detail);
  }
  const result = toOfrepResult(detail, context, reevaluateIn(target.compiled, epochSeconds(services.clock)));
  if (isFailure(result)) reply.code(400);
  return result;
}

const BULK_SCHEMA = {
  tags,
  summary: 'Evaluate every flag (OFREP bulk)',
  description:
    'Every non-archived flag of the environment. The ETag digests the response: send it back as If-None-Match to get 304 while nothing changed. Sent in br or gzip when Accept-Encoding asks, with an ETag of its own per coding.',
  headers: Type.Object({ 'if-none-match': Type.Optional(Type.String()) }),
  querystring: Type.Object({
    flagConfigEtag: Type.Optional(
      Type.String({ description: 'The `etag` of the event that prompted this request.' }),
    ),
    flagConfigLastModified: Type.Optional(
      Type.String({ description: 'The `lastModified` of that event (informative).' }),
    ),
  }),
  body: RequestBody,
  response: {
    200: Type.Object(
      {
        flags: Type.Array(Type.Union([OfrepSuccessSchema, Failure])),
        eventStreams: Type.Optional(Type.Array(EventStream)),
      },
      { description: 'Sent pre-serialised, with its ETag.' },
    ),
    304: Type.Null({ description: 'Nothing changed since the ETag sent as If-None-Match.' }),
    ...errors,
  },
};

function bulkEvaluationRoute(app: RoutesApp, { services, realtime, changes, publicUrl }: OfrepOptions): void {
  app.post(
    '/evaluate/flags',
    { config: { access: OFREP_ACCESS, browser: true }, schema: BULK_SCHEMA, onSend: compressBulkAnswer },
    async (request, reply) => {
      const actor = actorOf(request);
      const scope = scopeOf(request);
      let target = await services.evaluation.target(actor, scope);
      const changeSeen = request.query.flagConfigEtag;
      if (changeSeen !== undefined && /^\d{1,15}$/.test(changeSeen)) {
        // Told of this revision by an event stream, perhaps held by another node: serve it, not an older one.
        await awaitRevision(changes, target.projectId, Number(changeSeen), CATCH_UP_MS);
        target = await services.evaluation.target(actor, scope);
      }
      const context = contextOf(request.body);
      const reevaluate = reevaluateIn(target.compiled, epochSeconds(services.clock));
      const details = services.evaluation.evaluateAllIn(target, context);
      const eventStreams = eventStreamsFor(
        request,
        realtime,
        publicUrl,
        target.projectId,
        target.environment,
      );
      const body = JSON.stringify({
        flags: details.map((d) => toOfrepResult(d, context, reevaluate)),
        ...(eventStreams === undefined ? {} : { eventStreams }),
      });
      return sendWithEtag(request, reply, body, JSON_TYPE);
    },
  );
}
