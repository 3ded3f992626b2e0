import { requireAllEnvironments } from '../../access/access-rules.ts';
import type { FieldChange } from '../../domain/change-request.ts';
import { isoTime } from '../../domain/clock.ts';
import { conflict, notFound, validationFailed } from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';
import type { RuleInput } from '../../domain/schemas/rules.ts';
import type { CreateSegmentInput, SegmentPatch } from '../../domain/schemas/segment-input.ts';
import { type Rule, type Segment, segmentsNamedBy } from '../../domain/segment.ts';
import { findSegmentCycle } from '../../evaluation/segments.ts';
import type { FlagStore, Page, PageRequest, ReadOptions, SegmentFilter } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { commitProjectChange, type WriteDeps } from '../core/commit.ts';
import { applyChanges, refuseStale, segmentChanges, staleChanges } from '../core/field-changes.ts';
import { checkIfMatch, type IfMatch } from '../core/if-match.ts';
import { firstVersion, keyedInProject, ofProject, takenIn } from '../core/keyed-resource.ts';
import { mergeField } from '../core/merge-patch.ts';
import { accessProject, projectToCreateIn } from '../core/project-access.ts';
import { versionFromAudit } from '../core/version-history.ts';
import { type Outcome, type VersionedKind, writeVersioned } from '../core/versioned-write.ts';
import { type Gated, markConflicts, throughGate } from '../core/write-gate.ts';
import type { FlagRoles } from './flag-service.ts';
import { validateRules } from './validate-rules.ts';

/** Segments as the one versioned write stores and audits them. */
const SEGMENTS: VersionedKind<Segment, FlagRoles> = {
  ...keyedInProject('segment'),
  insert: (tx, segment) => tx.insertSegment(segment),
  update: (tx, segment, expectedVersion) => tx.updateSegment(segment, expectedVersion),
  remove: (tx, segment) => tx.deleteSegment(segment.id),
};

export class SegmentService {
  readonly #deps: WriteDeps<FlagRoles>;

  constructor(deps: WriteDeps<FlagRoles>) {
    this.#deps = deps;
  }

  async list(
    actor: Actor,
    projectIdOrKey: string,
    filter: SegmentFilter,
    page: PageRequest,
  ): Promise<Page<Segment>> {
    const project = await accessProject(this.#deps.store, actor, projectIdOrKey, 'viewer');
    return this.#deps.store.listSegments(project.id, filter, page);
  }

  async get(actor: Actor, segmentId: string): Promise<Segment> {
    const segment = await this.#deps.store.findSegmentById(segmentId);
    await this.#projectOfSegment(actor, segment, segmentId, 'viewer');
    return segment as Segment;
  }

  /**
   * A segment of the project by its key or, as the API's other paths name it, by its `seg_…` id.
   * The key wins, as for flags: a key may itself look like an id.
   */
  async getInProject(actor: Actor, projectIdOrKey: string, segmentKeyOrId: string): Promise<Segment> {
    const { store } = this.#deps;
    const project = await accessProject(store, actor, projectIdOrKey, 'viewer');
    const segment =
      (await store.findSegmentByKey(project.id, segmentKeyOrId)) ??
      (segmentKeyOrId.startsWith('seg_') ? await store.findSegmentById(segmentKeyOrId) : undefined);
    if (segment === undefined || segment.projectId !== project.id)
      throw notFound(`No segment "${segmentKeyOrId}" in project "${project.key}".`);
    return segment;
  }

  /**
   * The project of a segment named by id: the route's grant when it ran (unset when the segment
   * is unknown or another project's: both 404), else the segment's own after the same rules.
   */
  async #projectOfSegment(
    actor: Actor,
    segment: Segment | undefined,
    segmentId: string,
    role: 'viewer' | 'editor',
  ): Promise<string> {
    const missing = () => notFound(`No segment with id "${segmentId}".`);
    if (actor.grant !== undefined) {
      const { projectId } = actor.grant;
      if (projectId === undefined || (segment !== undefined && segment.projectId !== projectId))
        throw missing();
      return projectId;
    }
    if (segment === undefined) throw missing();
    await accessProject(this.#deps.store, actor, segment.projectId, role);
    if (role === 'editor') requireAllEnvironments(actor.principal);
    return segment.projectId;
  }

  /** The project a write of the segment acts in; read here only when no route resolved it. */
  async #writableProject(actor: Actor, segmentId: string): Promise<string> {
    const segment = actor.grant === undefined ? await this.#deps.store.findSegmentById(segmentId) : undefined;
    return this.#projectOfSegment(actor, segment, segmentId, 'editor');
  }

  async create(actor: Actor, projectIdOrKey: string, input: CreateSegmentInput): Promise<Segment> {
    // A segment is used by every environment's rules.
    const project = await projectToCreateIn(this.#deps.store, actor, projectIdOrKey);
    const segment: Segment = {
      ...firstVersion('seg', input, isoTime(this.#deps.clock)),
      projectId: project.id,
      match: input.match ?? 'all',
      // Rules as sent; #validate refuses them before the write if they are not rules.
      rules: (input.rules ?? []) as readonly Rule[],
      included: input.included ?? [],
      excluded: input.excluded ?? [],
    };
    return commitProjectChange(this.#deps, project.id, 'project', (tx) =>
      writeVersioned(tx, actor, this.#deps.clock, SEGMENTS, {
        create: async () => {
          await this.#validate(tx, segment);
          return {
            next: segment,
            action: 'segment.created',
            taken: takenIn(project, 'segment', segment.key),
          };
        },
      }),
    );
  }

  /** A merge patch of the segment, through the gate: it changes every flag rule that uses the segment. */
  async patch(
    actor: Actor,
    segmentId: string,
    patch: SegmentPatch,
    options: IfMatch,
  ): Promise<Gated<Segment>> {
    const { projectId, stored } = await this.#writable(actor, segmentId, options.ifMatch);
    const next = this.#merged(stored, patch);
    await this.#validate(this.#deps.store, next);
    return this.#throughGate(actor, stored, 'segment.patch', patch, segmentChanges(stored, next), () =>
      this.#replace(actor, projectId, segmentId, options.ifMatch, 'segment.updated', async (current) =>
        this.#merged(current, patch),
      ),
    );
  }

  /** `stored` after a merge patch (RFC 7396: a field set to null takes its default), not yet validated. */
  #merged(stored: Segment, patch: SegmentPatch): Segment {
    return {
      ...stored,
      name: patch.name ?? stored.name,
      description: mergeField(stored.description, patch.description) ?? '',
      match: mergeField(stored.match, patch.match) ?? 'all',
      // Rules as sent; #validate refuses them before the write if they are not rules.
      rules: (mergeField<readonly (Rule | RuleInput)[]>(stored.rules, patch.rules) ?? []) as readonly Rule[],
      included: mergeField(stored.included, patch.included) ?? [],
      excluded: mergeField(stored.excluded, patch.excluded) ?? [],
      version: stored.version + 1,
      updatedAt: isoTime(this.#deps.clock),
    };
  }

  /** The segment a write acts on, once the actor may write it and If-Match holds, with its project. */
  async #writable(
    actor: Actor,
    segmentId: string,
    ifMatch: number | undefined,
  ): Promise<{ projectId: string; stored: Segment }> {
    const projectId = await this.#writableProject(actor, segmentId);
    const stored = await segmentOfProject(this.#deps.store, projectId, segmentId);
    checkIfMatch(ifMatch, stored.version);
    return { projectId, stored };
  }

  /** The gate for a segment write: it reaches every environment where a flag uses the segment. */
  async #throughGate<T>(
    actor: Actor,
    stored: Segment,
    kind: 'segment.patch' | 'segment.delete',
    patch: Readonly<Record<string, unknown>>,
    changes: readonly FieldChange[],
    apply: () => Promise<T>,
  ): Promise<Gated<T>> {
    const [flags, segments] = await Promise.all([
      this.#deps.store.allFlags(stored.projectId),
      this.#deps.store.allSegments(stored.projectId),
    ]);
    const write = {
      kind,
      projectId: stored.projectId,
      segmentId: stored.id,
      environments: environmentsUsingSegment(stored.key, flags, segments),
      patch,
      changes,
      baseVersion: stored.version,
    };
    return throughGate(this.#deps, actor, write, apply);
  }

  /**
   * Writes an approved request's changes over the segment as it is now, as `actor`; a field
   * someone else wrote since throws `conflict`. `claim` marks the request applied in the write's
   * transaction and answers the audit event's details.
   */
  async applyChangesOnBehalf(
    actor: Actor,
    segmentId: string,
    changes: readonly FieldChange[],
    claim: (tx: FlagRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<Segment> {
    const current = await this.#deps.store.findSegmentById(segmentId);
    if (current === undefined) throw notFound(`No segment with id "${segmentId}".`);
    return this.#replace(
      actor,
      current.projectId,
      segmentId,
      undefined,
      'segment.updated',
      async (stored) => {
        refuseStale(staleChanges(changes, stored));
        return {
          ...applyChanges(stored, changes),
          version: stored.version + 1,
          updatedAt: isoTime(this.#deps.clock),
        };
      },
      claim,
    );
  }

  /** Writes the segment as it was at `version` (from the audit log) as its next version (docs/product.md §10), through the gate. */
  async restore(actor: Actor, segmentId: string, version: number, options: IfMatch): Promise<Gated<Segment>> {
    const { projectId, stored } = await this.#writable(actor, segmentId, options.ifMatch);
    const restored = restoredSegment(
      stored,
      await versionFromAudit<Segment>(this.#deps.store, projectId, 'segment', segmentId, version),
      isoTime(this.#deps.clock),
    );
    await this.#validate(this.#deps.store, restored);
    const changes = segmentChanges(stored, restored);
    // As a request, a restore is the merge patch that sets the fields it changes.
    const patch = Object.fromEntries(changes.map((change) => [change.path.slice(1), change.after]));
    return this.#throughGate(actor, stored, 'segment.patch', patch, changes, () =>
      this.#replace(actor, projectId, segmentId, options.ifMatch, 'segment.restored', async (current, tx) =>
        restoredSegment(
          current,
          await versionFromAudit<Segment>(tx, current.projectId, 'segment', segmentId, version),
          isoTime(this.#deps.clock),
        ),
      ),
    );
  }

  /** The one way a stored segment is rewritten: checked, validated, written unless raced, audited. */
  async #replace(
    actor: Actor,
    projectId: string,
    segmentId: string,
    ifMatch: number | undefined,
    action: string,
    build: (stored: Segment, tx: FlagRoles) => Promise<Segment>,
    claim?: (tx: FlagRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<Segment> {
    return this.#writeStored(actor, projectId, segmentId, ifMatch, async (stored, tx) => {
      const next = await build(stored, tx);
      await this.#validate(tx, next);
      return { next, action, details: await claim?.(tx) };
    });
  }

  /**
   * A write of the stored segment, in a transaction of its own: the segment is read there and
   * locked until commit (a concurrent write without If-Match waits its turn instead of failing;
   * writes naming it either committed already or wait, and then see the change), and the open
   * change requests the write conflicts with are marked.
   */
  #writeStored(
    actor: Actor,
    projectId: string,
    segmentId: string,
    ifMatch: number | undefined,
    change: (stored: Segment, tx: FlagRoles) => Promise<Outcome<Segment>>,
  ): Promise<Segment> {
    return commitProjectChange(this.#deps, projectId, 'project', (tx) =>
      writeVersioned(tx, actor, this.#deps.clock, SEGMENTS, {
        load: () => segmentOfProject(tx, projectId, segmentId, { forUpdate: true }),
        ifMatch,
        change: (stored) => change(stored, tx),
        also: (segment, at, gone) => markConflicts(tx, actor, projectId, { segment, gone }, at),
      }),
    );
  }

  /** The flags and segments whose rules use the segment: what stands in the way of deleting it. */
  async usedBy(actor: Actor, segmentId: string): Promise<SegmentUsers> {
    const segment = await this.get(actor, segmentId);
    const [flags, segments] = await Promise.all([
      this.#deps.store.allFlags(segment.projectId),
      this.#deps.store.allSegments(segment.projectId),
    ]);
    return segmentUsers(segment.key, flags, segments);
  }

  /** Deletes an unused segment, through the gate (where a flag in a guarded environment uses it, it is in use anyway). */
  async delete(actor: Actor, segmentId: string, options: IfMatch): Promise<Gated<void>> {
    const { projectId, stored } = await this.#writable(actor, segmentId, options.ifMatch);
    const changes = [{ path: '', before: stored, after: null }];
    return this.#throughGate(actor, stored, 'segment.delete', {}, changes, () =>
      this.deleteOnBehalf(actor, projectId, segmentId, options.ifMatch),
    );
  }

  /** Deletes the segment as `actor`, whose rights were checked; refused (409) while anything uses it. */
  async deleteOnBehalf(
    actor: Actor,
    projectId: string,
    segmentId: string,
    ifMatch: number | undefined,
    claim?: (tx: FlagRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<void> {
    await this.#writeStored(actor, projectId, segmentId, ifMatch, async (stored, tx) => {
      const users = segmentUsers(stored.key, await tx.allFlags(projectId), await tx.allSegments(projectId));
      const names = [
        ...users.flags.map((f) => `flag "${f.key}"`),
        ...users.segments.map((s) => `segment "${s.key}"`),
      ];
      if (names.length > 0) {
        throw conflict(
          `The segment "${stored.key}" is used by ${names.join(', ')}; remove those uses first.`,
        );
      }
      return { next: null, action: 'segment.deleted', details: await claim?.(tx) };
    });
  }

  async #validate(store: FlagStore, segment: Segment): Promise<void> {
    // The segments this one names stay locked until the write commits, so none is deleted meanwhile.
    const named = await store.existingSegmentKeys(segment.projectId, segmentsNamedBy(segment.rules));
    const others = (await store.allSegments(segment.projectId)).filter((s) => s.id !== segment.id);
    const keys = new Set([...named, segment.key]);
    const errors = validateRules(segment.rules, keys, '/rules');
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
}

export interface SegmentUser {
  readonly id: string;
  readonly key: string;
  readonly name: string;
}

export interface SegmentUsers {
  /** Flags with a rule that uses the segment, and the environments those rules are in. */
  readonly flags: readonly (SegmentUser & { readonly environments: readonly string[] })[];
  readonly segments: readonly SegmentUser[];
}

/** The flags and segments whose rules refer to the segment `key`. */
function segmentUsers(key: string, flags: readonly Flag[], segments: readonly Segment[]): SegmentUsers {
  const refers = (rules: readonly Rule[]) => rules.some((r) => r.type === 'segment' && r.segment === key);
  const user = ({ id, key, name }: SegmentUser) => ({ id, key, name });
  return {
    flags: flags.flatMap((flag) => {
      const environments = Object.entries(flag.environments)
        .filter(([, env]) => env.rules.some((rule) => rule.segments.includes(key) || refers(rule.conditions)))
        .map(([environment]) => environment);
      return environments.length > 0 ? [{ ...user(flag), environments }] : [];
    }),
    segments: segments.filter((s) => s.key !== key && refers(s.rules)).map(user),
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

/**
 * The environments whose evaluation a change of the segment `key` reaches: those where a flag's
 * rules use it, directly or through segments that use it (segment-in-segment, to any depth).
 */
export function environmentsUsingSegment(
  key: string,
  flags: readonly Flag[],
  segments: readonly Segment[],
): string[] {
  const reached = new Set([key]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const segment of segments) {
      if (!reached.has(segment.key) && segmentsNamedBy(segment.rules).some((k) => reached.has(k))) {
        reached.add(segment.key);
        grew = true;
      }
    }
  }
  const environments = new Set<string>();
  for (const segmentKey of reached) {
    for (const user of segmentUsers(segmentKey, flags, segments).flags) {
      for (const environment of user.environments) environments.add(environment);
    }
  }
  return [...environments];
}

/** The stored segment, when it is one of the project's (404 otherwise); `forUpdate` as for flags. */
async function segmentOfProject(store: FlagStore, projectId: string, id: string, options?: ReadOptions) {
  return ofProject(await store.findSegmentById(id, options), projectId, () =>
    notFound(`No segment with id "${id}".`),
  );
}
