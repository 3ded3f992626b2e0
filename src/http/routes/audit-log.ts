import { type Static, Type } from 'typebox';
import type { AuditFilter } from '../../domain/audit-event.ts';
import { KEY_MAX_LENGTH } from '../../domain/keys.ts';
import type { PageRequest } from '../../domain/page.ts';
import type { Services } from '../../services/services.ts';
import { countedPageOf, pageOf } from '../request-helpers.ts';
import { access, FLAG, ORGANISATION, PROJECT } from '../route-access.ts';
import { listRoute } from '../route-builders.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, CountedPageQuery, FlagIdParams, ProjectParams, paged } from '../schemas/common.ts';
import { AuditEventSchema } from '../schemas/resources.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Audit log']);
const COUNTED =
  'Pages both ways: `Link` rel="next" (older) and rel="prev" (newer), with `X-Total-Count` (the events that match) and `X-Page-Offset` (how many newer ones come before this page).';
const AuditFilters = {
  ...CountedPageQuery,
  resourceType: Type.Optional(Type.String({ maxLength: 64, description: 'e.g. flag, segment, api_key' })),
  resourceId: Type.Optional(
    Type.String({
      maxLength: KEY_MAX_LENGTH,
      description: "The resource's id, or a flag's or segment's key in the project.",
    }),
  ),
  action: Type.Optional(Type.String({ maxLength: 64, description: 'e.g. flag.updated' })),
  actorId: Type.Optional(Type.String({ maxLength: 64, description: 'The API key or account that acted.' })),
};
const ProjectAuditQuery = Closed(AuditFilters);
const OrganisationAuditQuery = Closed({
  ...AuditFilters,
  project: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: "Only this project's events: its key or id (a deleted project's id still works).",
    }),
  ),
});
/** What an audit log's query asks for: the events its filters name, a counted page of them. */
const askedBy = (query: Static<typeof ProjectAuditQuery>): { filter: AuditFilter; page: PageRequest } => ({
  filter: {
    resourceType: query.resourceType,
    resourceId: query.resourceId,
    action: query.action,
    actorId: query.actorId,
  },
  page: countedPageOf(query),
});

export const auditLogRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  listRoute(
    app,
    '/projects/:projectId/audit-log',
    describe("A project's audit log, newest first (admin)", {
      description: COUNTED,
      params: ProjectParams,
      querystring: ProjectAuditQuery,
      200: Type.Array(AuditEventSchema),
      config: access('admin', PROJECT),
    }),
    (actor, { params, query }) => {
      const { filter, page } = askedBy(query);
      return services.auditLog.listProject(actor, params.projectId, filter, page);
    },
  );

  listRoute(
    app,
    '/flags/:flagId/history',
    describe("A flag's history: its own audit events, newest first (viewer)", {
      description:
        'The events of this flag only, readable by anyone who may read the flag; each `after` is a version `POST /v1/flags/{flagId}/restore` can bring back.',
      params: FlagIdParams,
      ...paged(AuditEventSchema),
      config: access('viewer', FLAG),
    }),
    (actor, { params, query }) => services.flags.history(actor, params.flagId, pageOf(query)),
  );

  listRoute(
    app,
    '/audit-log',
    describe(
      'Every audit event of the installation, newest first, including deleted projects and organisation-wide keys (organisation-wide admin)',
      {
        description: COUNTED,
        querystring: OrganisationAuditQuery,
        200: Type.Array(AuditEventSchema),
        config: access('admin', ORGANISATION),
      },
    ),
    (actor, { query }) => {
      const { filter, page } = askedBy(query);
      return services.auditLog.listAll(actor, filter, page, query.project);
    },
  );
};
