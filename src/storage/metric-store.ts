import type { Metric } from '../domain/metric.ts';
import type { Page, PageRequest } from './page.ts';

/** Metric definitions of a project (docs/measurement.md): written with their audit event, in its transaction. */
export interface MetricStore {
  /** A project's metrics in key order. */
  listMetrics(projectId: string, page: PageRequest): Promise<Page<Metric>>;
  findMetricByKey(projectId: string, key: string): Promise<Metric | undefined>;
  /** Throws UniqueViolation when the key is taken in the project. */
  insertMetric(metric: Metric): Promise<void>;
  /** Writes `metric` unless the stored version is no longer `expectedVersion` (then false). */
  updateMetric(metric: Metric, expectedVersion: number): Promise<boolean>;
  /** False when there was nothing to delete. */
  deleteMetric(id: string): Promise<boolean>;
}
