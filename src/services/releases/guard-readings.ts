import type { Metric } from '../../domain/metric.ts';
import {
  type GuardReading,
  type MetricGuard,
  type PrometheusGuard,
  type PrometheusThreshold,
  type ReleasePlan,
  releaseComparisonKey,
} from '../../domain/release-plan.ts';
import { sequentialGuard, type TestStatistic } from '../../statistics/index.ts';
import type { ComparisonStatistics } from '../measurement/comparison-statistics.ts';
import { type PrometheusQueries, PrometheusUnreadable } from './prometheus-client.ts';

// One look of each kind of guard (SPEC §13 "Guards"). A guard that cannot be read says why and
// never reads as clear: the plan holds where it is.

/** The variants a guard compares: what a rollback serves again, and what the plan releases. */
type Compared = Pick<ReleasePlan, 'id' | 'projectId' | 'environment' | 'control' | 'treatment'>;

const unreadable = (guard: string, at: string, message: string): GuardReading => ({
  guard,
  at,
  status: 'unreadable',
  figures: {},
  message,
});

const units = (statistic: TestStatistic | undefined): number => statistic?.n ?? 0;

/**
 * A Flagstaff metric, treatment against control, through the statistics part's always-valid
 * one-sided test (`sequentialGuard`, decision 1910): breached when the bound on the effect lies
 * wholly on the harmful side. Below `minUnits` in either variant, or without variance, it cannot
 * be read. `statistics` undefined: no engine is wired to give per-variant figures.
 */
export async function readMetricGuard(
  guard: MetricGuard,
  metric: Metric | undefined,
  plan: Compared,
  statistics: ComparisonStatistics | undefined,
  at: string,
): Promise<GuardReading> {
  if (metric === undefined)
    return unreadable(guard.name, at, `the metric "${guard.metric}" no longer exists`);
  if (statistics === undefined) {
    return unreadable(guard.name, at, 'no per-variant statistics are available on this server yet');
  }
  const ref = {
    projectId: plan.projectId,
    environment: plan.environment,
    key: releaseComparisonKey(plan.id),
  };
  const byVariant = await statistics.variantStatistics(ref, metric);
  return metricVerdict(guard, metric, byVariant.get(plan.control), byVariant.get(plan.treatment), at);
}

/** The pure decision of a metric guard over the two variants' sufficient statistics. */
export function metricVerdict(
  guard: MetricGuard,
  metric: Pick<Metric, 'goal'>,
  control: TestStatistic | undefined,
  treatment: TestStatistic | undefined,
  at: string,
): GuardReading {
  const seen = { controlUnits: units(control), treatmentUnits: units(treatment) };
  if (
    control === undefined ||
    treatment === undefined ||
    Math.min(seen.controlUnits, seen.treatmentUnits) < guard.minUnits
  ) {
    return {
      ...unreadable(
        guard.name,
        at,
        `${seen.treatmentUnits} units saw the new variant and ${seen.controlUnits} the control; the guard reads from ${guard.minUnits} each`,
      ),
      figures: seen,
    };
  }
  const verdict = sequentialGuard(control, treatment, { goal: metric.goal, alpha: guard.alpha });
  if (verdict.status === 'unreadable') {
    return {
      ...unreadable(guard.name, at, `the comparison cannot be made: ${verdict.reason}`),
      figures: seen,
    };
  }
  const figures = { ...seen, effect: verdict.effect, bound: verdict.bound, alpha: guard.alpha };
  const percent = (x: number) => `${(x * 100).toFixed(2)} %`;
  const way = metric.goal === 'increase' ? 'lower' : 'higher';
  return {
    guard: guard.name,
    at,
    status: verdict.status === 'regressed' ? 'breached' : 'clear',
    figures,
    message:
      verdict.status === 'regressed'
        ? `${guard.metric} is ${way} with the new variant: effect ${percent(verdict.effect)}, always-valid bound ${percent(verdict.bound)} (α ${guard.alpha})`
        : `${guard.metric}: effect ${percent(verdict.effect)}, bound ${percent(verdict.bound)}; no regression shown`,
  };
}

/** A PromQL template for one variant. */
export const queryFor = (guard: Pick<PrometheusGuard, 'query'>, variant: string): string =>
  guard.query.replaceAll('$variant', variant);

/** The pure decision of a Prometheus guard: higher is worse; the threshold is absolute or × control. */
export function prometheusVerdict(
  guard: Pick<PrometheusGuard, 'name' | 'threshold'>,
  treatment: number,
  control: number | undefined,
  at: string,
): GuardReading {
  const limit = limitOf(guard.threshold, control);
  const figures = {
    treatment,
    ...(control === undefined ? {} : { control }),
    threshold: limit,
  };
  const breached = treatment > limit;
  const against =
    'relativeToControl' in guard.threshold
      ? `${guard.threshold.relativeToControl} × the control's ${control}`
      : 'the threshold';
  return {
    guard: guard.name,
    at,
    status: breached ? 'breached' : 'clear',
    figures,
    message: `the new variant reads ${treatment}, ${breached ? 'above' : 'within'} ${limit} (${against})`,
  };
}

const limitOf = (threshold: PrometheusThreshold, control: number | undefined): number =>
  'above' in threshold ? threshold.above : threshold.relativeToControl * (control ?? Number.NaN);

/** A Prometheus guard's look: the treatment's value, and the control's when the threshold is relative to it. */
export async function readPrometheusGuard(
  guard: PrometheusGuard,
  plan: Compared,
  prometheus: PrometheusQueries | undefined,
  at: string,
): Promise<GuardReading> {
  if (prometheus === undefined) return unreadable(guard.name, at, 'FLAGSTAFF_PROMETHEUS_URL is not set');
  try {
    const relative = 'relativeToControl' in guard.threshold;
    const [treatment, control] = await Promise.all([
      prometheus.value(queryFor(guard, plan.treatment)),
      relative ? prometheus.value(queryFor(guard, plan.control)) : Promise.resolve(undefined),
    ]);
    return prometheusVerdict(guard, treatment, control, at);
  } catch (error) {
    if (error instanceof PrometheusUnreadable) return unreadable(guard.name, at, error.message);
    throw error;
  }
}
