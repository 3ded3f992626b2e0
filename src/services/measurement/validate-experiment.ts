import { type FieldError, validationFailed } from '../../domain/errors.ts';
import type { Experiment } from '../../domain/experiment.ts';
import type { Flag } from '../../domain/flag.ts';

/** What an experiment is checked against: its project's flag, environments and metric keys, as stored now. */
export interface ExperimentReferences {
  /** The flag it names, undefined when the project has none of that key. */
  readonly flag: Flag | undefined;
  readonly environments: ReadonlySet<string>;
  /** Of the metric keys it names, those that exist. */
  readonly metricKeys: ReadonlySet<string>;
}

function variantErrors(experiment: Experiment, flag: Flag): FieldError[] {
  const errors: FieldError[] = [];
  const keys = new Set(flag.variants.map((v) => v.key));
  const named = [...keys].map((k) => `"${k}"`).join(', ');
  if (!keys.has(experiment.control)) {
    errors.push({
      path: '/control',
      message: `"${experiment.control}" is not a variant of the flag "${flag.key}" (${named}).`,
    });
  }
  experiment.treatments.forEach((treatment, i) => {
    if (treatment === experiment.control) {
      errors.push({
        path: `/treatments/${i}`,
        message: `"${treatment}" is the control: a treatment is compared with it.`,
      });
    } else if (!keys.has(treatment)) {
      errors.push({
        path: `/treatments/${i}`,
        message: `"${treatment}" is not a variant of the flag "${flag.key}" (${named}).`,
      });
    }
  });
  return errors;
}

function metricErrors(experiment: Experiment, metricKeys: ReadonlySet<string>): FieldError[] {
  const { primary, secondary, guardrails } = experiment.metrics;
  const unknown = (key: string, path: string): FieldError[] =>
    metricKeys.has(key) ? [] : [{ path, message: `No metric "${key}" in this project.` }];
  return [
    ...unknown(primary, '/metrics/primary'),
    ...secondary.flatMap((key, i) => unknown(key, `/metrics/secondary/${i}`)),
    ...guardrails.flatMap((key, i) => unknown(key, `/metrics/guardrails/${i}`)),
  ];
}

/**
 * Refuses an experiment that cannot be measured as it says, naming each field: a flag the
 * project lacks or with one variant, variants not the flag's, the control among the treatments,
 * metrics that do not exist, an unknown environment, a sequential Bayesian analysis.
 */
export function validateExperiment(experiment: Experiment, references: ExperimentReferences): void {
  const errors: FieldError[] = [];
  const { flag } = references;
  if (!references.environments.has(experiment.environment)) {
    errors.push({
      path: '/environment',
      message: `No environment "${experiment.environment}" in this project.`,
    });
  }
  if (flag === undefined) {
    errors.push({ path: '/flag', message: `No flag "${experiment.flag}" in this project.` });
  } else if (flag.variants.length < 2) {
    errors.push({
      path: '/flag',
      message: `The flag "${flag.key}" has one variant: an experiment compares at least two.`,
    });
  } else {
    errors.push(...variantErrors(experiment, flag));
  }
  errors.push(...metricErrors(experiment, references.metricKeys));
  if (experiment.analysis.method === 'bayesian' && experiment.analysis.sequential) {
    errors.push({ path: '/analysis/sequential', message: 'Sequential testing is a frequentist analysis.' });
  }
  if (errors.length > 0) throw validationFailed('The experiment is not valid.', errors);
}
