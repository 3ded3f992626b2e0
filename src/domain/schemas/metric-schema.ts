import { Type } from 'typebox';
import { Description, Id, Key, Name, Timestamp, Version } from './kit.ts';
import { MetricEvent, MetricGoalSchema, MetricKindSchema } from './metric-input.ts';

/** A metric as the API answers it (docs/measurement.md). */
export const MetricSchema = Type.Object({
  id: Id,
  projectId: Id,
  key: Key,
  name: Name,
  description: Description,
  event: MetricEvent,
  kind: MetricKindSchema,
  window: Type.Integer({ description: 'Hours after a unit’s first exposure that its events count.' }),
  goal: MetricGoalSchema,
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
