import type { Metric, MetricGoal, MetricKind } from '../../domain/metric.ts';
import type { MetricStore } from '../metric-store.ts';
import type { MetricsTable } from './database.ts';
import type { SqlContext } from './sql-context.ts';
import { projectKeyedRows } from './versioned-rows.ts';

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
export function metricQueries({ db }: SqlContext): MetricStore {
  return projectKeyedRows(db, 'metrics', metricToRow, metricFromRow);
}
