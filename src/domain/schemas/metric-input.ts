import { type Static, Type } from 'typebox';
import { MAX_WINDOW_HOURS, METRIC_GOALS, METRIC_KINDS } from '../metric.ts';
import { EVENT_NAME_MAX_LENGTH, EVENT_NAME_PATTERN } from '../tracking-event.ts';
import { Closed, Description, Key, Name, OneOf } from './kit.ts';

// What a client sends to create or patch a metric (docs/measurement.md): the request-body schemas
// of the HTTP API, and through Static<…> the types MetricService takes.

export const MetricEvent = Type.String({
  minLength: 1,
  maxLength: EVENT_NAME_MAX_LENGTH,
  pattern: EVENT_NAME_PATTERN,
  description: 'The tracking event counted: its `name` as sent to POST /v1/events.',
});
export const MetricKindSchema = OneOf(METRIC_KINDS, {
  description:
    'conversion: sent the event in its window; count: events per unit; sum: the sum of `value` per unit.',
});
export const MetricWindow = Type.Integer({
  minimum: 1,
  maximum: MAX_WINDOW_HOURS,
  description: 'Hours after a unit’s first exposure that its events count (default 72).',
});
export const MetricGoalSchema = OneOf(METRIC_GOALS, {
  description: 'Which way is better (default increase).',
});

export const CreateMetricSchema = Closed({
  key: Key,
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  event: MetricEvent,
  kind: MetricKindSchema,
  window: Type.Optional(MetricWindow),
  goal: Type.Optional(MetricGoalSchema),
});

/** A merge patch: null puts a field back to its default. The key stays: experiments name metrics by it. */
export const PatchMetricSchema = Closed({
  name: Type.Optional(Type.Union([Name, Type.Null()])),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
  event: Type.Optional(MetricEvent),
  kind: Type.Optional(MetricKindSchema),
  window: Type.Optional(Type.Union([MetricWindow, Type.Null()])),
  goal: Type.Optional(Type.Union([MetricGoalSchema, Type.Null()])),
});

export type CreateMetricInput = Static<typeof CreateMetricSchema>;
export type MetricPatch = Static<typeof PatchMetricSchema>;
