import { Type } from 'typebox';
import { accessProject } from '../../services/project-access.ts';
import type { Services } from '../../services/services.ts';
import { actorOf, pageOf, sendPage } from '../request-helpers.ts';
import { Closed, PageQuery, ProjectParams, problems } from '../schemas/common.ts';
import { AuditEventSchema } from '../schemas/resources.ts';
import type { RoutesPlugin } from '../type-provider.ts';

export const auditLogRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/projects/:projectId/audit-log',
    {
      schema: {
        tags: ['Audit log'],
        summary: "A project's audit log, newest first (admin)",
        params: ProjectParams,
        querystring: Closed({
          ...PageQuery,
          resourceType: Type.Optional(Type.String({ maxLength: 64 })),
          resourceId: Type.Optional(Type.String({ maxLength: 64 })),
          action: Type.Optional(Type.String({ maxLength: 64 })),
        }),
        response: { 200: Type.Array(AuditEventSchema), ...problems(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { resourceType, resourceId, action } = request.query;
      const project = await accessProject(
        services.store,
        actorOf(request).principal,
        request.params.projectId,
        'admin',
      );
      const page = await services.store.listAuditEvents(
        project.id,
        { resourceType, resourceId, action },
        pageOf(request.query),
      );
      return sendPage(request, reply, page, (e) => e);
    },
  );
};
