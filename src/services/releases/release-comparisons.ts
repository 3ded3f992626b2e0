import type { Metric } from '../../domain/metric.ts';
import { releaseComparisonKey } from '../../domain/release-plan.ts';
import type { MetricRole, ReleaseRole } from '../../storage/store.ts';
import type { MeasuredComparison, MeasuredComparisons } from '../measurement/comparison-statistics.ts';

/**
 * The release plans the aggregate fold keeps aggregates for (decision 1941): every plan that is
 * running or paused with a metric guard, under `release:<plan id>`, with its guards' metrics, so
 * a guard reads treatment against control from the same per-unit aggregates experiments do.
 */
export class ReleaseComparisons implements MeasuredComparisons {
  readonly #store: ReleaseRole & MetricRole;

  constructor(store: ReleaseRole & MetricRole) {
    this.#store = store;
  }

  async measured(): Promise<readonly MeasuredComparison[]> {
    const plans = await this.#store.releases.plansWithStatus(['running', 'paused']);
    const measured = plans.filter((plan) => plan.guards.some((guard) => guard.kind === 'metric'));
    return Promise.all(
      measured.map(async (plan) => {
        const keys = plan.guards.flatMap((guard) => (guard.kind === 'metric' ? [guard.metric] : []));
        const metrics = await Promise.all(
          keys.map((key) => this.#store.metrics.findByKey(plan.projectId, key)),
        );
        return {
          ref: {
            projectId: plan.projectId,
            environment: plan.environment,
            key: releaseComparisonKey(plan.id),
          },
          metrics: metrics.filter((metric): metric is Metric => metric !== undefined),
          endsAt: null,
        };
      }),
    );
  }
}
