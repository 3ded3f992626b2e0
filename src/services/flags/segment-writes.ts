import type { ChangeRequestKind, FieldChange } from '../../domain/change-request.ts';
import { isoTime } from '../../domain/clock.ts';
import { conflict, notFound, validationFailed } from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';
import type { RuleInput } from '../../domain/schemas/rules.ts';
import type { SegmentPatch } from '../../domain/schemas/segment-input.ts';
import { type Rule, type Segment, segmentsNamedBy } from '../../domain/segment.ts';
import { findSegmentCycle } from '../../evaluation/segments.ts';
import type { FlagStore } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { applyChanges, refuseStale, segmentChanges, staleChanges } from '../core/field-changes.ts';
import { checkIfMatch } from '../core/if-match.ts';
import { keyedInProject } from '../core/keyed-resource.ts';
import { mergeField } from '../core/merge-patch.ts';
import { versionFromAudit } from '../core/version-history.ts';
import { type VersionedKind, writeVersioned } from '../core/versioned-write.ts';
import { type Approval, type Gated, markConflicts } from '../core/write-gate.ts';
import { type PipelineDeps, runWrite } from '../core/write-pipeline.ts';
import { authoriseWrite } from '../core/write-rights.ts';
import type { FlagRoles } from './flag-kind.ts';
import { environmentsUsingSegment, segmentUsers } from './segment-users.ts';
import { validateRules } from './validate-rules.ts';

/** Segments as the one versioned write stores and audits them. */
export const SEGMENTS: VersionedKind<Segment, FlagRoles> = {
  ...keyedInProject('segment'),
  insert: (tx, segment) => tx.insertSegment(segment),
  update: (tx, segment, expectedVersion) => tx.updateSegment(segment, expectedVersion),
  remove: (tx, segment) => tx.deleteSegment(segment.id),
};

/** How a segment write passes the pipeline (as for flags: flag-writes.ts). */
export interface SegmentWriteOptions {
  readonly ifMatch?: number | undefined;
  readonly approval?: Approval | undefined;
  /** The caller decided the rights (an approved change request's approver). */
  readonly authorised?: boolean;
  readonly claim?: ((tx: FlagRoles) => Promise<Readonly<Record<string, unknown>>>) | undefined;
}

interface SegmentWrite {
  readonly kind: ChangeRequestKind;
  readonly action: string;
  /** What a change request records as its patch; default: the fields the write sets. */
  readonly patch?: Readonly<Record<string, unknown>>;
  /** The next version (null deletes), not yet validated. */
  readonly build: (stored: Segment, tx: FlagRoles) => Promise<Segment | null>;
}

interface PreparedSegment {
  readonly projectId: string;
  readonly stored: Segment;
  readonly next: Segment | null;
  readonly changes: readonly FieldChange[];
  /** Every environment where a flag uses the segment, directly or through other segments. */
  readonly reach: readonly string[];
  /** The project's flags and segments, read once: for the reach, validation and a delete's check. */
  readonly flags: readonly Flag[];
  readonly segments: readonly Segment[];
}

/**
 * Refuses a segment whose rules name missing segments or make a cycle. The segments it names
 * stay locked until the write commits, so none is deleted meanwhile; `segments` are the project's.
 */
export async function validateSegment(
  store: FlagStore,
  segment: Segment,
  segments: readonly Segment[],
): Promise<void> {
  const named = await store.existingSegmentKeys(segment.projectId, segmentsNamedBy(segment.rules));
  const others = segments.filter((s) => s.id !== segment.id);
  const errors = validateRules(segment.rules, new Set([...named, segment.key]), '/rules');
  if (errors.length === 0) {
    const cycle = findSegmentCycle([...others, segment]);
    if (cycle)
      errors.push({
        path: '/rules',
        message: `segments would refer to each other in a cycle: ${cycle.join(' → ')}`,
      });
  }
  if (errors.length > 0) throw validationFailed('The segment is not valid.', errors);
}

/** `stored` after a merge patch (RFC 7396: a field set to null takes its default), not yet validated. */
function merged(stored: Segment, patch: SegmentPatch, at: string): Segment {
  return {
    ...stored,
    name: patch.name ?? stored.name,
    description: mergeField(stored.description, patch.description) ?? '',
    match: mergeField(stored.match, patch.match) ?? 'all',
    // Rules as sent; validateSegment refuses them before the write if they are not rules.
    rules: (mergeField<readonly (Rule | RuleInput)[]>(stored.rules, patch.rules) ?? []) as readonly Rule[],
    included: mergeField(stored.included, patch.included) ?? [],
    excluded: mergeField(stored.excluded, patch.excluded) ?? [],
    version: stored.version + 1,
    updatedAt: at,
  };
}

/** `earlier` as the next version of `stored`: its identity kept. */
function restoredSegment(stored: Segment, earlier: Segment, at: string): Segment {
  return {
    ...earlier,
    id: stored.id,
    projectId: stored.projectId,
    key: stored.key,
    version: stored.version + 1,
    createdAt: stored.createdAt,
    updatedAt: at,
  };
}

/** Refuses (409) deleting a segment that flags or segments still use. */
function refuseIfUsed(stored: Segment, flags: readonly Flag[], segments: readonly Segment[]): void {
  const users = segmentUsers(stored.key, flags, segments);
  const names = [
    ...users.flags.map((f) => `flag "${f.key}"`),
    ...users.segments.map((s) => `segment "${s.key}"`),
  ];
  if (names.length > 0) {
    throw conflict(`The segment "${stored.key}" is used by ${names.join(', ')}; remove those uses first.`);
  }
}

/**
 * Every write of a stored segment, through the one pipeline: patch, restore, delete, an approved
 * request's changes. A segment change reaches every environment where a flag uses it. Built by
 * services.ts for the segment service and change requests; no route receives it.
 */
export class SegmentWrites {
  readonly #deps: PipelineDeps<FlagRoles>;

  constructor(deps: PipelineDeps<FlagRoles>) {
    this.#deps = deps;
  }

  #now(): string {
    return isoTime(this.#deps.clock);
  }

  patch(actor: Actor, segmentId: string, patch: SegmentPatch, options: SegmentWriteOptions = {}) {
    return this.#run(actor, segmentId, options, {
      kind: 'segment.patch',
      action: 'segment.updated',
      patch,
      build: async (stored) => merged(stored, patch, this.#now()),
    });
  }

  /** An approved request's changes over the segment as it is now; a field someone else wrote since throws `conflict`. */
  applyChanges(
    actor: Actor,
    segmentId: string,
    changes: readonly FieldChange[],
    options: SegmentWriteOptions,
  ) {
    return this.#run(actor, segmentId, options, {
      kind: 'segment.patch',
      action: 'segment.updated',
      build: async (stored) => {
        refuseStale(staleChanges(changes, stored));
        return { ...applyChanges(stored, changes), version: stored.version + 1, updatedAt: this.#now() };
      },
    });
  }

  /** The segment as it was at `version` (from the audit log) as its next version; as a request, the merge patch that sets the fields it changes. */
  restore(actor: Actor, segmentId: string, version: number, options: SegmentWriteOptions = {}) {
    return this.#run(actor, segmentId, options, {
      kind: 'segment.patch',
      action: 'segment.restored',
      build: async (stored, tx) =>
        restoredSegment(
          stored,
          await versionFromAudit<Segment>(tx, stored.projectId, 'segment', segmentId, version),
          this.#now(),
        ),
    });
  }

  /** Deletes an unused segment (where a flag in a guarded environment uses it, it is in use anyway). */
  delete(actor: Actor, segmentId: string, options: SegmentWriteOptions = {}) {
    return this.#run(actor, segmentId, options, {
      kind: 'segment.delete',
      action: 'segment.deleted',
      patch: {},
      build: async () => null,
    });
  }

  #run(
    actor: Actor,
    segmentId: string,
    options: SegmentWriteOptions,
    how: SegmentWrite,
  ): Promise<Gated<Segment>> {
    return runWrite(this.#deps, actor, {
      approval: options.approval,
      prepare: (tx) => this.#prepare(tx, actor, segmentId, options, how),
      gated: ({ stored, changes, reach }) => ({
        kind: how.kind,
        segmentId,
        environments: reach,
        patch: how.patch ?? Object.fromEntries(changes.map((change) => [change.path.slice(1), change.after])),
        changes,
        baseVersion: stored.version,
      }),
      apply: async (tx, { projectId, stored, next, flags, segments }) => {
        // Only once the gate let it through: a request to delete a used segment waits for its uses to go.
        if (next === null) refuseIfUsed(stored, flags, segments);
        const details = await options.claim?.(tx);
        return writeVersioned(tx, actor, this.#deps.clock, SEGMENTS, {
          load: async () => stored,
          change: async () => ({ next, action: how.action, details }),
          also: (segment, at, gone) => markConflicts(tx, actor, projectId, { segment, gone }, at),
        });
      },
      announce: () => 'project',
    });
  }

  /** Lock and read, authorise, merge, validate, and the reach: once each, in the write's transaction. */
  async #prepare(
    tx: FlagRoles,
    actor: Actor,
    segmentId: string,
    options: SegmentWriteOptions,
    how: SegmentWrite,
  ): Promise<PreparedSegment> {
    const missing = () => notFound(`No segment with id "${segmentId}".`);
    const stored = await tx.findSegmentById(segmentId, { forUpdate: true });
    if (stored === undefined) throw missing();
    // A segment is used by every environment's rules.
    if (options.authorised !== true) authoriseWrite(actor, stored.projectId, 'all', missing);
    checkIfMatch(options.ifMatch, stored.version);
    const { projectId } = stored;
    const [flags, segments] = await Promise.all([tx.allFlags(projectId), tx.allSegments(projectId)]);
    const next = await how.build(stored, tx);
    if (next !== null) await validateSegment(tx, next, segments);
    const changes =
      next === null ? [{ path: '', before: stored, after: null }] : segmentChanges(stored, next);
    const reach = environmentsUsingSegment(stored.key, flags, segments);
    return { projectId, stored, next, changes, reach, flags, segments };
  }
}
