import { Type } from 'typebox';
import type { Flag } from '../../domain/flag.ts';
import { DEFAULT_ENVIRONMENT } from '../../domain/project.ts';
import { DependantSchema } from '../../domain/schemas/flag-schema.ts';
import { ChangeRequestSchema } from '../../domain/schemas/pending-change-schemas.ts';
import type { Services } from '../../services/services.ts';
import type { FlagUsage } from '../../services/serving/insights-service.ts';
import { compressAnswersOf } from '../compressed-answers.ts';
import { type FlagNaming, flagNamings } from '../flag-namings.ts';
import { actorOf, countedPageOf, sendMade, sendPage, sendResource } from '../request-helpers.ts';
import { ALL, access, FLAG, flagPatchEnvironments, PROJECT } from '../route-access.ts';
import { gatedDeleteRoute, gatedWriteRoute, routeGroups } from '../route-builders.ts';
import { CREATE_IN_PROJECT, describeRoutes } from '../route-schema.ts';
import {
  Closed,
  CountedPageQuery,
  FlagIdParams,
  Key,
  NAMED_BY_KEY,
  ProjectFlagParams,
  ProjectParams,
  RestoreSchema,
  SearchQuery,
} from '../schemas/common.ts';
import { CreateFlagSchema, FlagSchema, FlagSummarySchema, PatchFlagSchema } from '../schemas/flags.ts';
import type { RoutesApp } from '../type-provider.ts';

const describe = describeRoutes(['Flags']);
const EnvironmentQuery = Type.Optional(Key);
const PATCH_DESCRIPTION =
  'Flag fields, and the environment fields (`enabled`, `offVariant`, `defaultVariant`, `defaultRollout`, `targets`, `rules`) of `?environment=` (default production), or of several environments with `environments: { <envKey>: {…} }`.';

/** What the list of flags filters by, besides the page. */
const FlagListQuery = Closed({
  ...CountedPageQuery,
  environment: EnvironmentQuery,
  tag: Type.Optional(Key),
  q: SearchQuery,
  archived: Type.Optional(Type.Boolean()),
  stale: Type.Optional(
    Type.Boolean({
      description: 'Only the flags stale (true) or not stale (false) in the environment.',
    }),
  ),
  enabled: Type.Optional(
    Type.Boolean({ description: 'Only the flags on (true) or off (false) in the environment.' }),
  ),
  configuration: Type.Optional(
    Type.Boolean({
      description:
        'Each flag whole: also its `projectId`, `variants`, `metadata` and every environment’s configuration, as GET of the flag gives them (for tools reading a project in bulk: pages of up to 1,000).',
    }),
  ),
});

/**
 * The seed's list shape: `enabled` is the flag's state in one environment; insights add its use
 * there. `environments` gives its state and last evaluation in each, so that one request shows a
 * page of flags in every environment (docs/decisions/1802-one-request-per-page-of-flags.md).
 */
const summary =
  (
    environment: string,
    usage: ReadonlyMap<string, FlagUsage>,
    references: ReadonlyMap<string, number>,
    configuration: boolean,
  ) =>
  (flag: Flag) => {
    const used = usage.get(flag.key);
    return {
      // The bulk read (decision 1960): each flag whole, as its GET gives it, so that a tool reads a page of flags in one request.
      ...(configuration
        ? { projectId: flag.projectId, variants: flag.variants, metadata: flag.metadata }
        : {}),
      id: flag.id,
      key: flag.key,
      name: flag.name,
      type: flag.type,
      enabled: flag.environments[environment]?.enabled ?? false,
      description: flag.description,
      tags: flag.tags,
      archived: flag.archived,
      version: flag.version,
      createdAt: flag.createdAt,
      updatedAt: flag.updatedAt,
      lastEvaluatedAt: used?.lastEvaluatedAt ?? null,
      stale: used?.stale ?? null,
      codeReferences: references.get(flag.key) ?? 0,
      environments: Object.fromEntries(
        Object.entries(flag.environments).map(([key, config]) => [
          key,
          {
            ...(configuration ? config : {}),
            enabled: config.enabled,
            lastEvaluatedAt: used?.lastEvaluatedIn[key] ?? null,
          },
        ]),
      ),
    };
  };

export const flagRoutes = routeGroups<Services>(flagList, flagCreationAndRead, flagChanges, flagHistory);

/** The list of a project's flags, filtered and paged, and the tags to filter it by. */
function flagList(app: RoutesApp, services: Services): void {
  app.addHook('onRoute', compressAnswersOf('GET', '/projects/:projectId/flags'));
  app.get(
    '/projects/:projectId/flags',
    describe("List a project's flags", {
      params: ProjectParams,
      description:
        'Pages both ways: `Link` rel="next" and rel="prev", with `X-Total-Count` (the flags that match, on every page) and `X-Page-Offset` (how many come before this page).',
      querystring: FlagListQuery,
      200: Type.Array(FlagSummarySchema),
      config: access('viewer', PROJECT),
    }),
    async (request, reply) => {
      const {
        environment = DEFAULT_ENVIRONMENT,
        tag,
        q,
        archived,
        stale,
        enabled,
        configuration,
      } = request.query;
      const page = await services.flags.list(
        actorOf(request),
        request.params.projectId,
        environment,
        {
          tag,
          q,
          archived,
          stale: stale === undefined ? undefined : services.insights.staleFilter(environment, stale),
          enabled: enabled === undefined ? undefined : { environment, enabled },
        },
        countedPageOf(request.query),
      );
      const projectId = page.items[0]?.projectId;
      const [usage, references] =
        projectId === undefined
          ? [new Map(), new Map()]
          : await Promise.all([
              services.insights.usageIn(projectId, environment, page.items),
              services.codeReferences.counts(actorOf(request), projectId),
            ]);
      return sendPage(request, reply, page, summary(environment, usage, references, configuration === true));
    },
  );

  app.get(
    '/projects/:projectId/flag-tags',
    describe("Every tag of a project's flags, sorted: the choices of the list's `?tag=`", {
      params: ProjectParams,
      200: Type.Array(Type.String()),
      config: access('viewer', PROJECT),
    }),
    async (request) => services.flags.tags(actorOf(request), request.params.projectId),
  );
}

function flagCreationAndRead(app: RoutesApp, services: Services): void {
  app.post(
    '/projects/:projectId/flags',
    describe('Create a flag (only `key` is required; `type` defaults to boolean)', {
      ...CREATE_IN_PROJECT,
      body: CreateFlagSchema,
      201: FlagSchema,
    }),
    async (request, reply) =>
      sendMade(
        request,
        reply,
        (actor) => services.flags.create(actor, request.params.projectId, request.body),
        (flag) => `/v1/projects/${flag.projectId}/flags/${flag.key}`,
      ),
  );

  app.get(
    '/projects/:projectId/flags/:flagKey',
    describe('Get a flag with its configuration in every environment', {
      description: NAMED_BY_KEY,
      params: ProjectFlagParams,
      200: FlagSchema,
      config: access('viewer', PROJECT),
    }),
    async (request, reply) => {
      const flag = await services.flags.get(
        actorOf(request),
        request.params.projectId,
        request.params.flagKey,
      );
      return sendResource(reply, { ...flag, lastEvaluatedAt: await services.insights.lastEvaluatedAt(flag) });
    },
  );
}

/** Patch and delete, under both of a flag's names. */
function flagChanges(app: RoutesApp, services: Services): void {
  for (const naming of flagNamings(services.flags)) flagChangesAs(app, services, naming);
}

function flagChangesAs(
  app: RoutesApp,
  services: Services,
  { url, params, target, byKey, idOf }: FlagNaming,
): void {
  const flag = byKey ? 'a flag named by its key' : 'a flag';
  gatedWriteRoute(
    app,
    'patch',
    url,
    describe(`Change ${flag} (JSON merge patch)`, {
      description: byKey ? `${NAMED_BY_KEY} ${PATCH_DESCRIPTION}` : PATCH_DESCRIPTION,
      params,
      querystring: Closed({ environment: EnvironmentQuery }),
      body: PatchFlagSchema,
      200: FlagSchema,
      202: ChangeRequestSchema,
      problems: [409, 412],
      config: access('editor', target, { body: flagPatchEnvironments }),
    }),
    async (actor, request, { ifMatch }) =>
      services.flags.patch(actor, await idOf(request), request.body, {
        environment: request.query.environment,
        ifMatch,
      }),
  );
  gatedDeleteRoute(
    app,
    url,
    describe(`Delete ${flag}`, {
      params,
      202: ChangeRequestSchema,
      problems: [409, 412],
      config: access('editor', target, { environments: ALL }),
    }),
    async (actor, request, options) => services.flags.delete(actor, await idOf(request), options),
  );
}

/** Restoring an earlier version, and what depends on the flag. */
function flagHistory(app: RoutesApp, services: Services): void {
  gatedWriteRoute(
    app,
    'post',
    '/flags/:flagId/restore',
    describe('Restore an earlier version of a flag, from the audit log, as its next version', {
      description:
        'Environments created since that version keep their current configuration. Honours If-Match.',
      params: FlagIdParams,
      body: RestoreSchema,
      200: FlagSchema,
      202: ChangeRequestSchema,
      problems: [409, 412],
      config: access('editor', FLAG, { environments: ALL }),
    }),
    (actor, { params, body }, options) => services.flags.restore(actor, params.flagId, body.version, options),
  );

  app.get(
    '/flags/:flagId/dependants',
    describe('The flags that require this one as a prerequisite, with the environments where they do', {
      params: FlagIdParams,
      200: Type.Array(DependantSchema),
      config: access('viewer', FLAG),
    }),
    async (request) => services.flags.dependants(actorOf(request), request.params.flagId),
  );
}
