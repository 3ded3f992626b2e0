import { type Static, Type } from 'typebox';
import { ANALYSIS_METHODS, EXPERIMENT_STATUSES } from '../experiment.ts';
import { Closed, Description, Key, Name, OneOf } from './kit.ts';

// What a client sends to create or patch an experiment (docs/measurement.md): the request-body
// schemas of the HTTP API, and through Static<…> the types ExperimentService takes.

export const ExperimentStatusSchema = OneOf(EXPERIMENT_STATUSES, {
  description: 'draft: being set up; running: exposing units; stopped: results frozen.',
});

const MetricKeys = Type.Array(Key, { maxItems: 20, uniqueItems: true });

export const ExperimentMetricsSchema = Closed({
  primary: Key,
  secondary: Type.Optional(MetricKeys),
  guardrails: Type.Optional(MetricKeys),
});

export const ExperimentAnalysisSchema = Closed({
  method: Type.Optional(OneOf(ANALYSIS_METHODS, { description: 'Default frequentist.' })),
  alpha: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 0.5, description: 'Default 0.05.' })),
  sequential: Type.Optional(Type.Boolean({ description: 'Frequentist only; default false.' })),
});

const Variants = Type.Array(Key, { minItems: 1, maxItems: 20, uniqueItems: true });

export const CreateExperimentSchema = Closed({
  key: Key,
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  flag: Key,
  environment: Key,
  control: Key,
  treatments: Variants,
  metrics: ExperimentMetricsSchema,
  analysis: Type.Optional(ExperimentAnalysisSchema),
  cuped: Type.Optional(Type.Boolean({ description: 'Default false.' })),
});

/** A merge patch of a draft: null puts a field back to its default. The key, flag and environment stay. */
export const PatchExperimentSchema = Closed({
  name: Type.Optional(Type.Union([Name, Type.Null()])),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
  control: Type.Optional(Key),
  treatments: Type.Optional(Variants),
  metrics: Type.Optional(ExperimentMetricsSchema),
  analysis: Type.Optional(ExperimentAnalysisSchema),
  cuped: Type.Optional(Type.Boolean()),
});

export type CreateExperimentInput = Static<typeof CreateExperimentSchema>;
export type ExperimentPatch = Static<typeof PatchExperimentSchema>;
