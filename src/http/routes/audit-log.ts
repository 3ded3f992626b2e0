import { Type } from 'typebox';
import type { Services } from '../../services/services.ts';
import type { AuditFilter } from '../../storage/store.ts';
import { actorOf, pageOf, sendPage } from '../request-helpers.ts';
import { Closed, PageQuery, ProjectParams, problems } from '../schemas/common.ts';
import { AuditEventSchema } from '../schemas/resources.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const tags = ['Audit log'];
const AuditFilters = {
  ...PageQuery,
  resourceType: Type.Optional(Type.String({ maxLength: 64, description: 'e.g. flag, segment, api_key' })),
  resourceId: Type.Optional(Type.String({ maxLength: 64 })),
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
const filterOf = (query: {
  resourceType?: string;
  resourceId?: string;
  action?: string;
  actorId?: string;
}): AuditFilter => ({
  resourceType: query.resourceType,
  resourceId: query.resourceId,
  action: query.action,
  actorId: query.actorId,
});

export const auditLogRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/projects/:projectId/audit-log',
    {
      schema: {
        tags,
        summary: "A project's audit log, newest first (admin)",
        params: ProjectParams,
        querystring: ProjectAuditQuery,
        response: { 200: Type.Array(AuditEventSchema), ...problems(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const page = await services.auditLog.listProject(
        actorOf(request),
        request.params.projectId,
        filterOf(request.query),
        pageOf(request.query),
      );
      return sendPage(request, reply, page, (e) => e);
    },
  );

  app.get(
    '/audit-log',
    {
      schema: {
        tags,
        summary:
          'Every audit event of the installation, newest first, including deleted projects and organisation-wide keys (organisation-wide admin)',
        querystring: OrganisationAuditQuery,
        response: { 200: Type.Array(AuditEventSchema), ...problems(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const page = await services.auditLog.listAll(
        actorOf(request),
        filterOf(request.query),
        pageOf(request.query),
        request.query.project,
      );
      return sendPage(request, reply, page, (e) => e);
    },
  );
};
