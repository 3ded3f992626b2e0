import { Type } from 'typebox';
import { ANALYSIS_METHODS } from '../experiment.ts';
import { ExperimentStatusSchema } from './experiment-input.ts';
import { Description, Id, Key, Name, OneOf, Timestamp, Version } from './kit.ts';

/** An experiment as the API answers it (docs/measurement.md). */
export const ExperimentSchema = Type.Object({
  id: Id,
  projectId: Id,
  key: Key,
  name: Name,
  description: Description,
  flag: Key,
  environment: Key,
  control: Key,
  treatments: Type.Array(Key),
  metrics: Type.Object({
    primary: Key,
    secondary: Type.Array(Key),
    guardrails: Type.Array(Key),
  }),
  analysis: Type.Object({
    method: OneOf(ANALYSIS_METHODS),
    alpha: Type.Number(),
    sequential: Type.Boolean(),
  }),
  cuped: Type.Boolean(),
  status: ExperimentStatusSchema,
  startedAt: Type.Union([Timestamp, Type.Null()]),
  stoppedAt: Type.Union([Timestamp, Type.Null()]),
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
