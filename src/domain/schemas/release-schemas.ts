import { type Static, Type } from 'typebox';
import { RELEASE_STATUSES } from '../release-plan.ts';
import { Closed, Description, Id, Key, Name, OneOf, PersonSchema, Timestamp, Version } from './kit.ts';

// Release templates and plans (docs/releases.md): what a client sends, and what the API answers.

const Duration = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'A number and a unit: `30s`, `10m`, `2h`, `1d`.',
});

const Rollout = Type.Union(
  [
    Type.Integer({ minimum: 0, maximum: 100, description: 'The percentage served the new variant.' }),
    Type.Record(Type.String(), Type.Integer({ minimum: 0, maximum: 1_000_000 }), {
      description: 'Weights by variant, as a rollout takes them.',
    }),
  ],
  { description: 'The percentage of the new variant, or weights by variant.' },
);

export const MilestoneInputSchema = Closed({
  name: Name,
  rollout: Rollout,
  hold: Type.String({
    minLength: 1,
    maxLength: 32,
    description:
      'How long the milestone holds before the next (`30s`, `10m`, `2h`, `1d`), or `until-proceeded`.',
  }),
});

const GuardName = Type.String({ minLength: 1, maxLength: 100 });

export const GuardInputSchema = Type.Union([
  Closed({
    kind: Type.Literal('metric'),
    name: GuardName,
    metric: Key,
    alpha: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 0.5 })),
    minUnits: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
  Closed({
    kind: Type.Literal('prometheus'),
    name: GuardName,
    query: Type.String({
      minLength: 1,
      maxLength: 4000,
      description: 'PromQL, `$variant` replaced by each variant.',
    }),
    threshold: Type.Union([
      Closed({ above: Type.Number({ description: 'Breach when the new variant’s value is above this.' }) }),
      Closed({
        relativeToControl: Type.Number({
          exclusiveMinimum: 0,
          description: 'Breach when the new variant’s value is above this many times the control’s.',
        }),
      }),
    ]),
  }),
]);

const StepsInput = {
  milestones: Type.Array(MilestoneInputSchema, { minItems: 1, maxItems: 20 }),
  guards: Type.Optional(Type.Array(GuardInputSchema, { maxItems: 10 })),
  onBreach: Type.Optional(
    OneOf(['pause', 'rollback'], { description: 'What a breach does (default rollback).' }),
  ),
  guardInterval: Type.Optional(Duration),
};

export const CreateReleaseTemplateSchema = Closed({
  key: Key,
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  ...StepsInput,
});

/** A merge patch: the steps given replace the template's. */
export const PatchReleaseTemplateSchema = Closed({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  milestones: Type.Optional(StepsInput.milestones),
  guards: StepsInput.guards,
  onBreach: StepsInput.onBreach,
  guardInterval: StepsInput.guardInterval,
});

export const CreateReleasePlanSchema = Closed({
  template: Type.Optional(Key),
  treatment: Type.Optional(Key),
  control: Type.Optional(Key),
  milestones: Type.Optional(StepsInput.milestones),
  guards: StepsInput.guards,
  onBreach: StepsInput.onBreach,
  guardInterval: StepsInput.guardInterval,
});

export const ReleaseStopSchema = Closed({ reason: Type.Optional(Type.String({ maxLength: 1000 })) });

export type MilestoneInput = Static<typeof MilestoneInputSchema>;
export type GuardInput = Static<typeof GuardInputSchema>;
export type CreateReleaseTemplateInput = Static<typeof CreateReleaseTemplateSchema>;
export type ReleaseTemplatePatch = Static<typeof PatchReleaseTemplateSchema>;
export type CreateReleasePlanInput = Static<typeof CreateReleasePlanSchema>;

const GuardSchema = Type.Union([
  Type.Object({
    kind: Type.Literal('metric'),
    name: Type.String(),
    metric: Key,
    alpha: Type.Number(),
    minUnits: Type.Integer(),
  }),
  Type.Object({
    kind: Type.Literal('prometheus'),
    name: Type.String(),
    query: Type.String(),
    threshold: Type.Union([
      Type.Object({ above: Type.Number() }),
      Type.Object({ relativeToControl: Type.Number() }),
    ]),
  }),
]);

const Steps = {
  guards: Type.Array(GuardSchema),
  onBreach: OneOf(['pause', 'rollback']),
  guardIntervalSeconds: Type.Number(),
};

export const ReleaseTemplateSchema = Type.Object({
  id: Id,
  projectId: Id,
  key: Key,
  name: Type.String(),
  description: Type.String(),
  milestones: Type.Array(
    Type.Object({
      name: Type.String(),
      rollout: Rollout,
      holdSeconds: Type.Union([Type.Number(), Type.Null()], { description: 'null: until someone proceeds.' }),
    }),
  ),
  ...Steps,
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const Reading = Type.Object({
  guard: Type.String(),
  at: Timestamp,
  status: OneOf(['clear', 'breached', 'unreadable']),
  figures: Type.Record(Type.String(), Type.Number()),
  message: Type.String(),
});

export const ReleasePlanSchema = Type.Object({
  id: Id,
  projectId: Id,
  flagId: Id,
  flagKey: Key,
  environment: Key,
  control: Key,
  treatment: Key,
  template: Type.Union([Key, Type.Null()]),
  status: OneOf(RELEASE_STATUSES),
  milestones: Type.Array(
    Type.Object({
      name: Type.String(),
      weights: Type.Array(Type.Object({ variant: Key, weight: Type.Integer() })),
      holdSeconds: Type.Union([Type.Number(), Type.Null()], { description: 'null: until someone proceeds.' }),
    }),
  ),
  ...Steps,
  current: Type.Union([Type.Integer(), Type.Null()], { description: 'The milestone running (index).' }),
  milestoneStartedAt: Type.Union([Timestamp, Type.Null()]),
  nextStep: Type.Union([Type.Object({ id: Id, at: Timestamp }), Type.Null()], {
    description: 'The scheduled change that makes the next step, and when it is due.',
  }),
  changeRequest: Type.Union([Id, Type.Null()], { description: 'The change request its start waits on.' }),
  readings: Type.Array(Reading, { description: 'Each guard’s last look.' }),
  history: Type.Array(Reading, { description: 'The looks before, oldest first (the last 120).' }),
  lookedAt: Type.Union([Timestamp, Type.Null()]),
  holding: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the plan does not move on (a guard that cannot be read).',
  }),
  stopReason: Type.Union([Type.String(), Type.Null()], { description: 'Why it paused or rolled back.' }),
  events: Type.Array(
    Type.Object({
      at: Timestamp,
      action: Type.String(),
      by: PersonSchema,
      milestone: Type.Optional(Type.Integer()),
      reason: Type.Optional(Type.String()),
    }),
    { description: 'The timeline: who did what.' },
  ),
  createdBy: PersonSchema,
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
