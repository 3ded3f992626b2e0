import type { ProjectResource } from './keyed-resource.ts';

// Experiments (SPEC §13): a flag's variants in one environment compared on metrics. The split is
// the flag's rollout there; the experiment says which variants it compares, on what, and how.

export const EXPERIMENT_STATUSES = ['draft', 'running', 'stopped'] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

export const ANALYSIS_METHODS = ['frequentist', 'bayesian'] as const;
export type AnalysisMethod = (typeof ANALYSIS_METHODS)[number];

/** The false-positive rate a frequentist analysis allows unless the experiment says otherwise. */
export const DEFAULT_ALPHA = 0.05;

/** The metrics an experiment reads, by key: the one it decides on, others it reports, those it must not harm. */
export interface ExperimentMetrics {
  readonly primary: string;
  readonly secondary: readonly string[];
  readonly guardrails: readonly string[];
}

export interface ExperimentAnalysis {
  readonly method: AnalysisMethod;
  /** Frequentist: two-sided, at this α; Bayesian: the credible interval's 1 − α. */
  readonly alpha: number;
  /** Frequentist only: the always-valid sequential test, so looking often does not raise false positives. */
  readonly sequential: boolean;
}

export interface Experiment extends ProjectResource {
  /** The flag's key: its variants are what is compared. */
  readonly flag: string;
  readonly environment: string;
  /** The variant the others are compared against. */
  readonly control: string;
  readonly treatments: readonly string[];
  readonly metrics: ExperimentMetrics;
  readonly analysis: ExperimentAnalysis;
  /** Regression adjustment with each unit's pre-exposure value of the metric (CUPED). */
  readonly cuped: boolean;
  readonly status: ExperimentStatus;
  readonly startedAt: string | null;
  readonly stoppedAt: string | null;
}

/** Every metric key the experiment reads, each once, primary first. */
export const metricKeysOf = (metrics: ExperimentMetrics): readonly string[] => [
  ...new Set([metrics.primary, ...metrics.secondary, ...metrics.guardrails]),
];

/** The variants it compares, control first: a unit served another one is not exposed to it. */
export const variantsOf = (experiment: Pick<Experiment, 'control' | 'treatments'>): readonly string[] => [
  experiment.control,
  ...experiment.treatments,
];
