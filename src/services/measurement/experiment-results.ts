import { notFound } from '../../domain/errors.ts';
import { type Experiment, metricKeysOf, variantsOf } from '../../domain/experiment.ts';
import type { Flag } from '../../domain/flag.ts';
import type { Metric } from '../../domain/metric.ts';
import type {
  EffectFigures,
  ExperimentResults,
  MetricResult,
} from '../../domain/schemas/experiment-results.ts';
import {
  type AnalysisSettings,
  analyseMetric,
  type BayesianResult,
  type FrequentistResult,
  sampleRatioMismatch,
} from '../../statistics/index.ts';
import type { ComparisonSnapshot } from '../../storage/comparison-aggregate-store.ts';
import type {
  ExperimentRole,
  FlagStore,
  MeasurementRole,
  MetricRole,
  ProjectStore,
} from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { accessProject } from '../core/project-access.ts';
import { statisticOf } from './aggregate-statistics.ts';
import { variantTotals } from './comparison-snapshots.ts';
import type { ComparisonRef } from './comparison-statistics.ts';

/** The store roles results read: the experiment, its flag and metrics, and the aggregates. */
export type ResultRoles = ProjectStore & FlagStore & MetricRole & ExperimentRole & MeasurementRole;

type Variants = ComparisonSnapshot['variants'];
const NONE: Variants[string] = {
  units: 0,
  sum: 0,
  sumSquares: 0,
  preSum: 0,
  preSumSquares: 0,
  sumProducts: 0,
};
const finite = (x: number | null) => (x === null || !Number.isFinite(x) ? null : x);

function figures(result: FrequentistResult | BayesianResult): EffectFigures {
  return {
    expected: result.expected,
    ci: [finite(result.ci[0]), finite(result.ci[1])],
    ...('pValue' in result && result.pValue !== undefined ? { pValue: result.pValue } : {}),
    ...('chanceToWin' in result ? { chanceToWin: result.chanceToWin, risk: [...result.risk] } : {}),
    errorMessage: result.errorMessage,
  };
}

/**
 * The shares the flag's split in the experiment's environment sends each compared variant: its
 * default rollout's weights, or equal shares when it serves them otherwise.
 */
export function expectedShares(experiment: Experiment, flag: Flag | undefined): number[] {
  const variants = variantsOf(experiment);
  const weights = flag?.environments[experiment.environment]?.defaultRollout?.weights ?? [];
  const of = variants.map((v) => weights.find((w) => w.variant === v)?.weight ?? 0);
  const total = of.reduce((a, b) => a + b, 0);
  return total > 0 ? of.map((w) => w / total) : variants.map(() => 1 / variants.length);
}

/** The analysis of one metric over each compared variant's totals. */
function analyse(experiment: Experiment, metric: Metric, totals: Variants) {
  const [control, ...treatments] = variantsOf(experiment).map((v) =>
    statisticOf(metric.kind, totals[v] ?? NONE, experiment.cuped),
  );
  const settings: AnalysisSettings = {
    analysis: experiment.analysis.method,
    sequential: experiment.analysis.sequential,
    alpha: experiment.analysis.alpha,
    goal: metric.goal,
  };
  return analyseMetric(control as NonNullable<typeof control>, treatments, settings);
}

const roleOf = (experiment: Experiment, key: string): MetricResult['role'] =>
  key === experiment.metrics.primary
    ? 'primary'
    : experiment.metrics.secondary.includes(key)
      ? 'secondary'
      : 'guardrail';

/**
 * An experiment's results (SPEC §13, docs/measurement.md): per metric and variant the figures of
 * the statistics part (equal to gbstats's), the sample-ratio check against the flag's split, and
 * the relative effect at every hourly snapshot. Read from the per-unit aggregates only.
 */
export class ExperimentResultsService {
  readonly #store: ResultRoles;

  constructor(store: ResultRoles) {
    this.#store = store;
  }

  async results(actor: Actor, projectIdOrKey: string, key: string): Promise<ExperimentResults> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    const experiment = await this.#store.experiments.findByKey(project.id, key);
    if (experiment === undefined) throw notFound(`No experiment "${key}" in project "${project.key}".`);
    const ref: ComparisonRef = {
      projectId: project.id,
      environment: experiment.environment,
      key: experiment.id,
    };
    const [flag, metrics, units] = await Promise.all([
      this.#store.findFlagByKey(project.id, experiment.flag),
      Promise.all(metricKeysOf(experiment.metrics).map((k) => this.#store.metrics.findByKey(project.id, k))),
      this.#store.aggregates.unitsByVariant(project.id, experiment.id),
    ]);
    const variants = variantsOf(experiment);
    const shares = expectedShares(experiment, flag);
    const counts = variants.map((v) => units.get(v) ?? 0);
    return {
      experiment: experiment.key,
      status: experiment.status,
      analysis: experiment.analysis.method,
      sequential: experiment.analysis.sequential,
      cuped: experiment.cuped,
      variants: variants.map((variant, i) => ({
        variant,
        units: counts[i] as number,
        expectedShare: shares[i] as number,
      })),
      srm: sampleRatioMismatch(counts, shares),
      metrics: await Promise.all(
        metrics
          .filter((m): m is Metric => m !== undefined)
          .map((m) => this.#metricResult(experiment, ref, m, units)),
      ),
    };
  }

  async #metricResult(
    experiment: Experiment,
    ref: ComparisonRef,
    metric: Metric,
    units: ReadonlyMap<string, number>,
  ): Promise<MetricResult> {
    const [totals, snapshots] = await Promise.all([
      variantTotals(this.#store.aggregates, ref, metric, units),
      this.#store.aggregates.listSnapshots(ref.projectId, ref.key, metric.id),
    ]);
    const analysed = analyse(experiment, metric, totals);
    const [control, ...treatments] = variantsOf(experiment);
    return {
      metric: metric.key,
      name: metric.name,
      kind: metric.kind,
      goal: metric.goal,
      role: roleOf(experiment, metric.key),
      control: { variant: control as string, ...analysed.control },
      treatments: analysed.treatments.map((t, i) => ({
        variant: treatments[i] as string,
        units: t.units,
        mean: t.mean,
        stddev: t.stddev,
        relative: figures(t.relative),
        absolute: figures(t.absolute),
      })),
      overTime: snapshots.map((snapshot) => ({
        at: new Date(snapshot.hour * 3_600_000).toISOString(),
        treatments: analyse(experiment, metric, snapshot.variants).treatments.map((t, i) => ({
          variant: treatments[i] as string,
          units: t.units,
          expected: t.relative.expected,
          ci: [finite(t.relative.ci[0]), finite(t.relative.ci[1])],
        })),
      })),
    };
  }
}
