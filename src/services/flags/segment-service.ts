import { requireAllEnvironments } from '../../access/access-rules.ts';
import { isoTime } from '../../domain/clock.ts';
import { notFound } from '../../domain/errors.ts';
import type { CreateSegmentInput, SegmentPatch } from '../../domain/schemas/segment-input.ts';
import type { Rule, Segment } from '../../domain/segment.ts';
import type { Page, PageRequest, SegmentFilter } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { commitProjectChange, type WriteDeps } from '../core/commit.ts';
import type { IfMatch } from '../core/if-match.ts';
import { firstVersion, takenIn } from '../core/keyed-resource.ts';
import { accessProject, projectToCreateIn } from '../core/project-access.ts';
import { writeVersioned } from '../core/versioned-write.ts';
import type { Gated } from '../core/write-gate.ts';
import type { FlagRoles } from './flag-kind.ts';
import { type SegmentUsers, segmentUsers } from './segment-users.ts';
import { SEGMENTS, SegmentWrites, validateSegment } from './segment-writes.ts';

export class SegmentService {
  readonly #deps: WriteDeps<FlagRoles>;
  /** The one write pipeline of stored segments, through the gate with the actor's rights. */
  readonly #writes: SegmentWrites;

  constructor(deps: WriteDeps<FlagRoles>) {
    this.#deps = deps;
    this.#writes = new SegmentWrites(deps);
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

  async create(actor: Actor, projectIdOrKey: string, input: CreateSegmentInput): Promise<Segment> {
    // A segment is used by every environment's rules.
    const project = await projectToCreateIn(this.#deps.store, actor, projectIdOrKey);
    const segment: Segment = {
      ...firstVersion('seg', input, isoTime(this.#deps.clock)),
      projectId: project.id,
      match: input.match ?? 'all',
      // Rules as sent; validateSegment refuses them before the write if they are not rules.
      rules: (input.rules ?? []) as readonly Rule[],
      included: input.included ?? [],
      excluded: input.excluded ?? [],
    };
    return commitProjectChange(this.#deps, project.id, 'project', (tx) =>
      writeVersioned(tx, actor, this.#deps.clock, SEGMENTS, {
        create: async () => {
          await validateSegment(tx, segment, await tx.allSegments(project.id));
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
  patch(actor: Actor, segmentId: string, patch: SegmentPatch, options: IfMatch): Promise<Gated<Segment>> {
    return this.#writes.patch(actor, segmentId, patch, { ifMatch: options.ifMatch });
  }

  /** Writes the segment as it was at `version` (from the audit log) as its next version (docs/product.md §10), through the gate. */
  restore(actor: Actor, segmentId: string, version: number, options: IfMatch): Promise<Gated<Segment>> {
    return this.#writes.restore(actor, segmentId, version, { ifMatch: options.ifMatch });
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
    const gated = await this.#writes.delete(actor, segmentId, { ifMatch: options.ifMatch });
    return 'request' in gated ? gated : { applied: undefined };
  }
}
