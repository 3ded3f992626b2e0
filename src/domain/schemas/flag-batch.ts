import { type Static, Type } from 'typebox';
import { CreateFlagSchema, PatchFlagSchema } from './flag-input.ts';
import { Closed, Id, Key, OneOf, Version } from './kit.ts';
import { ProblemSchema } from './problem-schema.ts';

// Many flag writes in one request (docs/decisions/1960-flag-batches.md): what
// `POST /v1/projects/{p}/flag-batches` takes and answers, for `flagstaff apply` and importers.

/** The most flags one batch may name: a batch is one transaction, and holds the database that long. */
export const MAX_FLAGS_PER_BATCH = 1000;
/** The most writes of one flag in a batch: its creation, its flag-wide patch, one per guarded environment. */
export const MAX_WRITES_PER_FLAG = 50;

/** One write of a flag, exactly as the single route would take it: exactly one of `create`, `patch`, `delete`. */
export const FlagBatchWriteSchema = Closed({
  create: Type.Optional(
    Type.Omit(CreateFlagSchema, ['key'], {
      description:
        'As `POST /v1/projects/{p}/flags` takes it, without `key` (the item names it). Only as the first write.',
    }),
  ),
  /** As `PATCH /v1/flags/{id}` takes it; its top-level environment fields are `environment`'s. */
  patch: Type.Optional(PatchFlagSchema),
  /** With `patch`: what `?environment=` says to the single route (default production). */
  environment: Type.Optional(Key),
  delete: Type.Optional(Type.Literal(true, { description: 'As `DELETE /v1/flags/{id}`.' })),
});

export const FlagBatchItemSchema = Closed({
  /** The flag's key (the new flag's, when its first write creates it). */
  flag: Key,
  /** The version the first write expects, as `If-Match` of the single route (412 for this flag alone); later writes follow from it. */
  ifMatch: Type.Optional(Version),
  writes: Type.Array(FlagBatchWriteSchema, { minItems: 1, maxItems: MAX_WRITES_PER_FLAG }),
});

export const FlagBatchSchema = Closed({
  flags: Type.Array(FlagBatchItemSchema, {
    description: `At most ${MAX_FLAGS_PER_BATCH} flags (else 413), each named once.`,
  }),
});

export type FlagBatchItem = Static<typeof FlagBatchItemSchema>;

export const FLAG_BATCH_OUTCOMES = ['written', 'requested', 'refused'] as const;

export const FlagBatchResultSchema = Type.Object({
  written: Type.Integer({ description: 'Flags whose every write was made.' }),
  requested: Type.Integer({
    description: 'Flags with at least one write kept as a change request (the rest made).',
  }),
  refused: Type.Integer({ description: 'Flags of which nothing was written.' }),
  flags: Type.Array(
    Type.Object({
      index: Type.Integer({ description: 'Position of the item in `flags`.' }),
      flag: Key,
      outcome: OneOf(FLAG_BATCH_OUTCOMES),
      id: Type.Optional(Id),
      /** The flag's version after its writes. */
      version: Type.Optional(Version),
      changeRequests: Type.Array(
        Type.Object({ id: Id, environment: Key, requiredApprovals: Type.Integer() }),
        { description: 'The change requests its writes to guarded environments became.' },
      ),
      /** Why the flag was refused, as the single route would answer it; nothing of it was written. */
      problem: Type.Optional(ProblemSchema),
      write: Type.Optional(
        Type.Integer({ description: 'With `problem`: the position of the write refused.' }),
      ),
    }),
  ),
});
