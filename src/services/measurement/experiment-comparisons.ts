import { metricKeysOf } from '../../domain/experiment.ts';
import type { Metric } from '../../domain/metric.ts';
import type { ExperimentRole, MetricRole } from '../../storage/store.ts';
import type { MeasuredComparison, MeasuredComparisons } from './comparison-statistics.ts';

/**
 * The experiments the fold keeps aggregates for: every one that ran (running, or stopped, whose
 * late events before the stop still count), each under its id, with the metrics it reads.
 */
export class ExperimentComparisons implements MeasuredComparisons {
  readonly #store: ExperimentRole & MetricRole;

  constructor(store: ExperimentRole & MetricRole) {
    this.#store = store;
  }

  async measured(): Promise<readonly MeasuredComparison[]> {
    const experiments = await this.#store.experiments.experimentsWithStatus(['running', 'stopped']);
    return Promise.all(
      experiments.map(async (e) => {
        const metrics = await Promise.all(
          metricKeysOf(e.metrics).map((key) => this.#store.metrics.findMetricByKey(e.projectId, key)),
        );
        return {
          ref: { projectId: e.projectId, environment: e.environment, key: e.id },
          metrics: metrics.filter((m): m is Metric => m !== undefined),
          endsAt: e.stoppedAt === null ? null : Date.parse(e.stoppedAt),
        };
      }),
    );
  }
}
