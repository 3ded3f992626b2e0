import { type Clock, systemClock } from '../../domain/clock.ts';
import { metricKeysOf } from '../../domain/experiment.ts';
import type { Metric } from '../../domain/metric.ts';
import type { ExperimentRole, MetricRole } from '../../storage/store.ts';
import type { MeasuredComparison, MeasuredComparisons } from './comparison-statistics.ts';

/** How long after its stop an experiment still takes late events (sent with a time before the stop). */
export const LATE_EVENTS_MS = 7 * 24 * 3_600_000;

/**
 * The experiments the fold keeps aggregates for: the running ones, and those stopped in the last
 * week (events sent late with a time before the stop still count), each under its id, with the
 * metrics it reads. Older ones cost the fold nothing: their results stay as they were.
 */
export class ExperimentComparisons implements MeasuredComparisons {
  readonly #store: ExperimentRole & MetricRole;
  readonly #clock: Clock;

  constructor(store: ExperimentRole & MetricRole, clock: Clock = systemClock) {
    this.#store = store;
    this.#clock = clock;
  }

  async measured(): Promise<readonly MeasuredComparison[]> {
    const now = this.#clock();
    const experiments = (await this.#store.experiments.experimentsWithStatus(['running', 'stopped'])).filter(
      (e) => e.stoppedAt === null || Date.parse(e.stoppedAt) > now - LATE_EVENTS_MS,
    );
    return Promise.all(
      experiments.map(async (e) => {
        const metrics = await Promise.all(
          metricKeysOf(e.metrics).map((key) => this.#store.metrics.findByKey(e.projectId, key)),
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
