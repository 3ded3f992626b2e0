import type { AuditStore } from '../store.ts';
import { auditEventFromRow, auditEventToRow } from './rows.ts';
import { paged, type SqlContext } from './sql-context.ts';

/** The audit log. */
export function auditQueries({ db }: SqlContext): AuditStore {
  return {
    async insertAuditEvent(projectId, event) {
      await db.insertInto('audit_events').values(auditEventToRow(projectId, event)).execute();
    },

    listAuditEvents(projectId, filter, page) {
      let query = db.selectFrom('audit_events').selectAll();
      if (projectId !== null) query = query.where('project_id', '=', projectId);
      if (filter.resourceType) query = query.where('resource_type', '=', filter.resourceType);
      const { resourceId } = filter;
      if (typeof resourceId === 'string' && resourceId !== '')
        query = query.where('resource_id', '=', resourceId);
      else if (Array.isArray(resourceId) && resourceId.length > 0)
        query = query.where('resource_id', 'in', resourceId);
      if (filter.action) query = query.where('action', '=', filter.action);
      if (filter.actorId) query = query.where('actor_id', '=', filter.actorId);
      return paged(query, { column: 'id', direction: 'desc', of: (r) => r.id }, page, (rows) =>
        rows.map(auditEventFromRow),
      );
    },
  };
}
