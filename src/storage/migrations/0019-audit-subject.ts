import { type Kysely, type Migration, sql } from 'kysely';
import { addColumns, createIndex } from './schema.ts';

/**
 * A change request's audit events name the flag or segment the request would change
 * (`subject_id`), so a flag's history lists its change requests beside its writes (issue 38).
 * Events recorded before the column existed take it from their request.
 */
export const auditSubject: Migration = {
  async up(db: Kysely<unknown>) {
    await addColumns(db, 'audit_events', 'subject_id text');
    await sql`
      UPDATE audit_events SET subject_id = (
        SELECT COALESCE(flag_id, segment_id) FROM pending_changes WHERE pending_changes.id = audit_events.resource_id
      )
      WHERE resource_type = 'change_request'`.execute(db);
    await createIndex(db, 'audit_events_subject', 'audit_events', ['subject_id', 'id']);
  },
};
