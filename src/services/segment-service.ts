import { DomainError, notFound, validationFailed } from '../domain/errors.ts';
import type { Flag } from '../domain/flag.ts';
import { type Rule, type Segment, type SegmentMatch, segmentsNamedBy } from '../domain/segment.ts';
import { findSegmentCycle } from '../evaluation/segments.ts';
import type { FlagStore, Page, PageRequest, StoreRoles } from '../storage/store.ts';
import { requireAllEnvironments } from './access.ts';
import type { Actor } from './actor.ts';
import { recordAudit } from './audit.ts';
import { commitProjectChange, type WriteDeps } from './commit.ts';
import { newId } from './ids.ts';
import { mergePatch } from './merge-patch.ts';
import { accessProject, changedMeanwhile, checkIfMatch, now } from './project-access.ts';
import { uniqueToConflict } from './unique-to-conflict.ts';
import { validateRules } from './validate-rules.ts';
import { versionFromAudit } from './version-history.ts';

export interface CreateSegmentInput {
  readonly key: string;
  readonly name?: string;
  readonly description?: string;
  readonly match?: SegmentMatch;
  readonly rules?: readonly Rule[];
  readonly included?: readonly string[];
  readonly excluded?: readonly string[];
}

export type SegmentPatch = Readonly<Record<string, unknown>>;

export class SegmentService {
  readonly #deps: WriteDeps;

  constructor(deps: WriteDeps) {
    this.#deps = deps;
  }

  async list(actor: Actor, projectIdOrKey: string, page: PageRequest): Promise<Page<Segment>> {
    const project = await accessProject(this.#deps.store, actor.principal, projectIdOrKey, 'viewer');
    return this.#deps.store.listSegments(project.id, page);
  }

  async get(actor: Actor, segmentId: string): Promise<Segment> {
    const segment = await this.#deps.store.findSegmentById(segmentId);
    if (segment === undefined) throw notFound(`No segment with id "${segmentId}".`);
    await accessProject(this.#deps.store, actor.principal, segment.projectId, 'viewer');
    return segment;
  }

  async create(actor: Actor, projectIdOrKey: string, input: CreateSegmentInput): Promise<Segment> {
    const project = await accessProject(this.#deps.store, actor.principal, projectIdOrKey, 'editor');
    // A segment is used by every environment's rules.
    requireAllEnvironments(actor.principal);
    const at = now();
    const segment: Segment = {
      id: newId('seg'),
      projectId: project.id,
      key: input.key,
      name: input.name ?? input.key,
      description: input.description ?? '',
      match: input.match ?? 'all',
      rules: input.rules ?? [],
      included: input.included ?? [],
      excluded: input.excluded ?? [],
      version: 1,
      createdAt: at,
      updatedAt: at,
    };
    return commitProjectChange(this.#deps, project.id, 'project', async (tx) => {
      await this.#validate(tx, segment);
      await tx
        .insertSegment(segment)
        .catch(uniqueToConflict(`A segment "${segment.key}" already exists in project "${project.key}".`));
      await recordAudit(tx, actor, project.id, {
        action: 'segment.created',
        resource: { type: 'segment', id: segment.id, key: segment.key },
        before: null,
        after: segment,
      });
      return segment;
    });
  }

  async patch(
    actor: Actor,
    segmentId: string,
    patch: SegmentPatch,
    options: { ifMatch?: number | undefined },
  ): Promise<Segment> {
    const current = await this.get(actor, segmentId);
    await accessProject(this.#deps.store, actor.principal, current.projectId, 'editor');
    requireAllEnvironments(actor.principal);
    return this.#replace(actor, current, options.ifMatch, 'segment.updated', async (stored) => {
      const merged = mergePatch(stored, patch) as Segment;
      return {
        ...merged,
        description: merged.description ?? '',
        match: merged.match ?? 'all',
        rules: merged.rules ?? [],
        included: merged.included ?? [],
        excluded: merged.excluded ?? [],
        version: stored.version + 1,
        updatedAt: now(),
      };
    });
  }

  /** Writes the segment as it was at `version` (from the audit log) as its next version (SPEC §10). */
  async restore(
    actor: Actor,
    segmentId: string,
    version: number,
    options: { ifMatch?: number | undefined },
  ): Promise<Segment> {
    const current = await this.get(actor, segmentId);
    await accessProject(this.#deps.store, actor.principal, current.projectId, 'editor');
    requireAllEnvironments(actor.principal);
    return this.#replace(actor, current, options.ifMatch, 'segment.restored', async (stored, tx) => {
      const earlier = await versionFromAudit<Segment>(tx, stored.projectId, 'segment', segmentId, version);
      return {
        ...earlier,
        id: stored.id,
        projectId: stored.projectId,
        key: stored.key,
        version: stored.version + 1,
        createdAt: stored.createdAt,
        updatedAt: now(),
      };
    });
  }

  /** The one way a stored segment is rewritten: checked, validated, written unless raced, audited. */
  async #replace(
    actor: Actor,
    current: Segment,
    ifMatch: number | undefined,
    action: string,
    build: (stored: Segment, tx: StoreRoles) => Promise<Segment>,
  ): Promise<Segment> {
    const segmentId = current.id;
    return commitProjectChange(this.#deps, current.projectId, 'project', async (tx) => {
      // Locked until commit: a concurrent patch without If-Match waits its turn instead of failing.
      const stored = await tx.findSegmentById(segmentId, { forUpdate: true });
      if (stored === undefined) throw notFound(`No segment with id "${segmentId}".`);
      checkIfMatch(ifMatch, stored.version);
      const next = await build(stored, tx);
      await this.#validate(tx, next);
      if (!(await tx.updateSegment(next, stored.version))) {
        throw changedMeanwhile('segment');
      }
      await recordAudit(tx, actor, stored.projectId, {
        action,
        resource: { type: 'segment', id: segmentId, key: next.key },
        before: stored,
        after: next,
      });
      return next;
    });
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

  async delete(actor: Actor, segmentId: string, options: { ifMatch?: number | undefined }): Promise<void> {
    const current = await this.get(actor, segmentId);
    await accessProject(this.#deps.store, actor.principal, current.projectId, 'editor');
    requireAllEnvironments(actor.principal);
    await commitProjectChange(this.#deps, current.projectId, 'project', async (tx) => {
      // Locked first, so writes naming the segment either committed already (and show up as
      // users below) or wait, and then find it gone.
      const stored = await tx.findSegmentById(segmentId, { forUpdate: true });
      if (stored === undefined) throw notFound(`No segment with id "${segmentId}".`);
      checkIfMatch(options.ifMatch, stored.version);
      const users = segmentUsers(
        stored.key,
        await tx.allFlags(stored.projectId),
        await tx.allSegments(stored.projectId),
      );
      const names = [
        ...users.flags.map((f) => `flag "${f.key}"`),
        ...users.segments.map((s) => `segment "${s.key}"`),
      ];
      if (names.length > 0) {
        throw new DomainError(
          'conflict',
          `The segment "${stored.key}" is used by ${names.join(', ')}; remove those uses first.`,
        );
      }
      if (!(await tx.deleteSegment(segmentId))) throw notFound(`No segment with id "${segmentId}".`);
      await recordAudit(tx, actor, stored.projectId, {
        action: 'segment.deleted',
        resource: { type: 'segment', id: segmentId, key: stored.key },
        before: stored,
        after: null,
      });
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
