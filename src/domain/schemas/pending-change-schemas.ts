import { Type } from 'typebox';
import { CHANGE_REQUEST_KINDS, CHANGE_REQUEST_STATUSES } from '../change-request.ts';
import { SCHEDULED_CHANGE_STATUSES } from '../scheduled-change.ts';
import { PatchFlagSchema } from './flag-input.ts';
import { Id, Json, Key, OneOf, PersonSchema, Timestamp, Version } from './kit.ts';

// Change requests and scheduled changes as the API answers them: the wire contract the
// dashboard reads (decision 1870).

export const ChangeRequestSchema = Type.Object({
  id: Id,
  projectId: Id,
  flagId: Type.Union([Id, Type.Null()], {
    description: 'The flag it changes; null for segments and flagd imports.',
  }),
  segmentId: Type.Union([Id, Type.Null()], { description: 'The segment it changes, if any.' }),
  environment: Key,
  environments: Type.Array(Key, {
    description: 'Every environment requiring approvals that the write reaches.',
  }),
  kind: OneOf(CHANGE_REQUEST_KINDS),
  patch: Type.Record(Type.String(), Json('A field of what was asked.'), {
    description:
      'What was asked: the merge patch (archiving is `{archived:true}`), `{version}` of a restore, `{at, patch, comment}` of a scheduled change, `{}` of a delete, the flagd document of an import.',
  }),
  changes: Type.Array(
    Type.Object({
      path: Type.String(),
      before: Json('The value it was based on; absent: the field was not there.'),
      after: Json('What it becomes; absent: the field is removed.'),
    }),
    {
      description:
        'Only what the author changes, as JSON pointers into the flag or segment (for an import: `/<flagKey>/…`), with the values it was based on.',
    },
  ),
  comment: Type.String(),
  baseVersion: Type.Integer({
    minimum: 0,
    description: "The flag's (or segment's) version it was made against; 0 for a flagd import.",
  }),
  requiredApprovals: Type.Integer({ minimum: 0, maximum: 5 }),
  author: PersonSchema,
  status: OneOf(CHANGE_REQUEST_STATUSES),
  conflict: Type.Union([Type.String(), Type.Null()], {
    description: 'Why it is conflicted: a field it changes was written since it was made.',
  }),
  approvals: Type.Array(Type.Object({ by: PersonSchema, at: Timestamp, comment: Type.String() })),
  decidedBy: Type.Union([PersonSchema, Type.Null()]),
  failure: Type.Union([Type.String(), Type.Null()], {
    description: 'Why it was not applied when its approvals were complete.',
  }),
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ScheduledChangeSchema = Type.Object({
  id: Id,
  flagId: Id,
  environment: Key,
  patch: PatchFlagSchema,
  comment: Type.String(),
  at: Timestamp,
  status: OneOf(SCHEDULED_CHANGE_STATUSES),
  author: PersonSchema,
  createdAt: Timestamp,
  settledAt: Type.Union([Timestamp, Type.Null()], {
    description: 'When it was applied, failed or cancelled.',
  }),
  failure: Type.Union([Type.String(), Type.Null()], { description: 'Why it could not be applied.' }),
});
