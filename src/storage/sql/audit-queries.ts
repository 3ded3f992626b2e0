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
      const { resourceType, resourceId } = filter;
      const ids =
        typeof resourceId === 'string' ? [resourceId] : (resourceId ?? []).filter((id) => id !== '');
      if (ids.length > 0) {
        // One resource's history: its own events, and (asked for) those of change requests that would change it.
        query = query.where((eb) => {
          const own = resourceType
            ? eb.and([eb('resource_type', '=', resourceType), eb('resource_id', 'in', ids)])
            : eb('resource_id', 'in', ids);
          return filter.withChangeRequests ? eb.or([own, eb('subject_id', 'in', ids)]) : own;
        });
      } else if (resourceType) query = query.where('resource_type', '=', resourceType);
      if (filter.action) query = query.where('action', '=', filter.action);
      if (filter.actorId) query = query.where('actor_id', '=', filter.actorId);
      return paged(query, { column: 'id', direction: 'desc', of: (r) => r.id }, page, (rows) =>
        rows.map(auditEventFromRow),
      );
    },
  };
}
