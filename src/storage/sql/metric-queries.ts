import type { Metric, MetricGoal, MetricKind } from '../../domain/metric.ts';
import type { MetricStore } from '../metric-store.ts';
import type { MetricsTable } from './database.ts';
import { findOne, mapUnique, paged, type SqlContext, touchedOne } from './sql-context.ts';

const metricToRow = (m: Metric): MetricsTable => ({
  id: m.id,
  project_id: m.projectId,
  key: m.key,
  name: m.name,
  description: m.description,
  event: m.event,
  kind: m.kind,
  window_hours: m.window,
  goal: m.goal,
  version: m.version,
  created_at: m.createdAt,
  updated_at: m.updatedAt,
});

const metricFromRow = (r: MetricsTable): Metric => ({
  id: r.id,
  projectId: r.project_id,
  key: r.key,
  name: r.name,
  description: r.description,
  event: r.event,
  kind: r.kind as MetricKind,
  window: Number(r.window_hours),
  goal: r.goal as MetricGoal,
  version: Number(r.version),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Metric definitions: versioned rows of a project, unique by key. */
export function metricQueries(context: SqlContext): MetricStore {
  const { db } = context;
  return {
    listMetrics: (projectId, page) =>
      paged(
        db.selectFrom('metrics').selectAll().where('project_id', '=', projectId),
        { column: 'key', direction: 'asc', of: (r) => r.key },
        page,
        (rows) => rows.map(metricFromRow),
      ),

    findMetricByKey: (projectId, key) =>
      findOne(
        db.selectFrom('metrics').selectAll().where('project_id', '=', projectId).where('key', '=', key),
        metricFromRow,
      ),

    async insertMetric(metric) {
      await mapUnique(db.insertInto('metrics').values(metricToRow(metric)).execute());
    },

    async updateMetric(metric, expectedVersion) {
      const result = await db
        .updateTable('metrics')
        .set(metricToRow(metric))
        .where('id', '=', metric.id)
        .where('version', '=', expectedVersion)
        .executeTakeFirst();
      return touchedOne(result);
    },

    async deleteMetric(id) {
      return touchedOne(await db.deleteFrom('metrics').where('id', '=', id).executeTakeFirst());
    },
  };
}
