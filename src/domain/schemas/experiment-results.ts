import { type Static, Type } from 'typebox';
import { METRIC_GOALS, METRIC_KINDS } from '../metric.ts';
import { Key, OneOf, Timestamp } from './kit.ts';

// An experiment's results as the API answers them (docs/measurement.md): the figures of
// src/statistics (gbstats's) per metric and variant, the SRM check, and the effect over time.

// One JSON-schema type list, not anyOf: the response serialiser matches array items by it.
const Bound = Type.Unsafe<number | null>({ type: ['number', 'null'] });
/** [lower, upper]; null where open (a one-sided interval). */
const Interval = (description?: string) =>
  Type.Array(Bound, { minItems: 2, maxItems: 2, ...(description === undefined ? {} : { description }) });

/** One treatment's effect over control: frequentist (p-value) or Bayesian (chance to win, risk). */
export const EffectSchema = Type.Object({
  expected: Type.Number({
    description: 'The estimated effect: relative ((b − a) / |a|) or absolute (b − a).',
  }),
  ci: Interval('The confidence (frequentist) or credible (Bayesian) interval.'),
  pValue: Type.Optional(Type.Number()),
  chanceToWin: Type.Optional(Type.Number()),
  risk: Type.Optional(Type.Array(Type.Number(), { minItems: 2, maxItems: 2 })),
  errorMessage: Type.Union([Type.String(), Type.Null()], {
    description: 'Why no effect could be estimated (no variance, a zero baseline).',
  }),
});

const VariantSummarySchema = Type.Object({
  variant: Key,
  units: Type.Integer(),
  mean: Type.Number(),
  stddev: Type.Number(),
});

export const MetricResultSchema = Type.Object({
  metric: Key,
  name: Type.String(),
  kind: OneOf(METRIC_KINDS),
  goal: OneOf(METRIC_GOALS),
  role: OneOf(['primary', 'secondary', 'guardrail'] as const),
  control: VariantSummarySchema,
  treatments: Type.Array(
    Type.Object({
      ...VariantSummarySchema.properties,
      relative: EffectSchema,
      absolute: EffectSchema,
    }),
  ),
  overTime: Type.Array(
    Type.Object({
      at: Timestamp,
      treatments: Type.Array(
        Type.Object({
          variant: Key,
          units: Type.Integer(),
          expected: Type.Number(),
          ci: Interval(),
        }),
      ),
    }),
    { description: 'The relative effect as it stood at each hour the experiment ran.' },
  ),
});

export const ExperimentResultsSchema = Type.Object({
  experiment: Key,
  status: OneOf(['draft', 'running', 'stopped'] as const),
  analysis: OneOf(['frequentist', 'bayesian'] as const),
  sequential: Type.Boolean(),
  cuped: Type.Boolean(),
  variants: Type.Array(
    Type.Object({
      variant: Key,
      units: Type.Integer(),
      expectedShare: Type.Number({ description: 'The share of units the flag’s split sends it.' }),
    }),
  ),
  srm: Type.Object({
    pValue: Type.Number({ description: 'χ² test of the units received against the split.' }),
    warning: Type.Boolean({
      description: 'p < 0.001: the split is not what it should be; distrust the results.',
    }),
  }),
  metrics: Type.Array(MetricResultSchema),
});

export type EffectFigures = Static<typeof EffectSchema>;
export type MetricResult = Static<typeof MetricResultSchema>;
export type ExperimentResults = Static<typeof ExperimentResultsSchema>;
