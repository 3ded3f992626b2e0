import { Type } from 'typebox';
import { Id, Key, OneOf, Timestamp } from './kit.ts';

// A flag's evaluations over time and a project's most evaluated flags, as the API answers them:
// the wire contract the dashboard reads (decision 1870; docs/insights.md).

/** The bucket widths of a series (`?step=`). */
export const INSIGHT_STEPS = ['1m', '5m', '15m', '1h', '6h', '1d'] as const;
export type InsightStep = (typeof INSIGHT_STEPS)[number];

export const FlagInsightsSchema = Type.Object({
  flagId: Id,
  flagKey: Key,
  environment: Key,
  from: Timestamp,
  to: Timestamp,
  step: OneOf(INSIGHT_STEPS),
  buckets: Type.Array(Timestamp, {
    description: 'Start of each bucket; every series’ counts line up with it.',
  }),
  series: Type.Array(
    Type.Object({
      variant: Type.Union([Type.String(), Type.Null()]),
      reason: Type.String(),
      counts: Type.Array(Type.Integer()),
      total: Type.Integer(),
    }),
  ),
  total: Type.Integer(),
  lastEvaluatedAt: Type.Union([Timestamp, Type.Null()]),
});

export const TopFlagsSchema = Type.Object({
  environment: Key,
  from: Timestamp,
  flags: Type.Array(Type.Object({ key: Key, count: Type.Integer() })),
});
