import type { SegmentStore } from '../store.ts';
import { keyOrNameContains } from './columns-contain.ts';
import { segmentFromRow, segmentToRow } from './rows.ts';
import { findOne, locked, mapUnique, paged, type SqlContext } from './sql-context.ts';
import { allOfProject, deleteById, updateVersioned } from './versioned-rows.ts';

/** Segments: the rule sets flags and other segments refer to by key. */
export function segmentQueries(context: SqlContext): SegmentStore {
  const { db } = context;
  return {
    listSegments(projectId, filter, page) {
      let query = db.selectFrom('segments').selectAll().where('project_id', '=', projectId);
      if (filter.q) query = query.where(keyOrNameContains(filter.q));
      return paged(query, { column: 'key', direction: 'asc', of: (r) => r.key }, page, (rows) =>
        rows.map(segmentFromRow),
      );
    },

    async allSegments(projectId) {
      return (await allOfProject(db, 'segments', projectId, 'key')).map(segmentFromRow);
    },

    findSegmentById: (id, options) =>
      findOne(
        locked(
          context,
          db.selectFrom('segments').selectAll().where('id', '=', id),
          options?.forUpdate ? 'update' : undefined,
        ),
        segmentFromRow,
      ),

    findSegmentByKey: (projectId, key) =>
      findOne(
        db.selectFrom('segments').selectAll().where('project_id', '=', projectId).where('key', '=', key),
        segmentFromRow,
      ),

    async existingSegmentKeys(projectId, keys) {
      if (keys.length === 0) return new Set();
      // FOR SHARE: a delete of these segments (which locks them FOR UPDATE) waits for this
      // transaction, and then sees the reference it wrote.
      const rows = await locked(
        context,
        db
          .selectFrom('segments')
          .select('key')
          .where('project_id', '=', projectId)
          .where('key', 'in', [...new Set(keys)]),
        'share',
      ).execute();
      return new Set(rows.map((r) => r.key));
    },

    async insertSegment(segment) {
      await mapUnique(db.insertInto('segments').values(segmentToRow(segment)).execute());
    },

    updateSegment: (segment, expectedVersion) =>
      updateVersioned(db, 'segments', segment.id, segmentToRow(segment), expectedVersion),

    deleteSegment: (id) => deleteById(db, 'segments', id),
  };
}
