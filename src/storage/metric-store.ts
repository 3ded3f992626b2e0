import type { Metric } from '../domain/metric.ts';
import type { ProjectKeyedStore } from './project-keyed-store.ts';

/** Metric definitions of a project (docs/measurement.md): written with their audit event, in its transaction. */
export type MetricStore = ProjectKeyedStore<Metric>;
