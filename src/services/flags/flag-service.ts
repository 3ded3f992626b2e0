import { isDeepStrictEqual } from 'node:util';
import { authorizeEnvironments, requireAllEnvironments } from '../../access/access-rules.ts';
import type { AuditEvent } from '../../domain/audit-event.ts';
import type { FieldChange } from '../../domain/change-request.ts';
import { isoTime } from '../../domain/clock.ts';
import { conflict, flagNotFound, notFound, validationFailed } from '../../domain/errors.ts';
import {
  BOOLEAN_VARIANTS,
  ENVIRONMENT_FIELDS,
  type Flag,
  type FlagEnvironment,
  type FlagMetadata,
  initialFlagEnvironment,
  segmentsNamedByFlag,
  type TargetingRule,
  type Variant,
} from '../../domain/flag.ts';
import { newId } from '../../domain/ids.ts';
import { isPlainObject } from '../../domain/json.ts';
import { DEFAULT_ENVIRONMENT } from '../../domain/project.ts';
import type { CreateFlagInput, FlagEnvironmentPatch, FlagPatch } from '../../domain/schemas/flag-input.ts';
import type { TargetingRuleInput } from '../../domain/schemas/rules.ts';
import type { Change } from '../../plane/snapshots.ts';
import type {
  FlagFilter,
  FlagStore,
  Page,
  PageRequest,
  PendingChangeRole,
  ProjectStore,
  ReadOptions,
} from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { commitProjectChange, type WriteDeps } from '../core/commit.ts';
import {
  applyChanges,
  environmentsOfChanges,
  flagChanges,
  refuseStale,
  staleChanges,
} from '../core/field-changes.ts';
import { checkIfMatch, type IfMatch } from '../core/if-match.ts';
import { firstVersion, keyedInProject, ofProject, takenIn } from '../core/keyed-resource.ts';
import { mergeField, mergePatch } from '../core/merge-patch.ts';
import { accessProject, projectToCreateIn } from '../core/project-access.ts';
import { versionFromAudit } from '../core/version-history.ts';
import {
  type AuditRoles,
  type Outcome,
  type VersionedKind,
  writeVersioned,
} from '../core/versioned-write.ts';
import { type Gated, markConflicts, throughGate } from '../core/write-gate.ts';
import { accessScope, patchReach } from './patch-reach.ts';
import { validateFlag } from './validate-flag.ts';
import { dependantsOf, requiredVariantsKept, validatePrerequisites } from './validate-prerequisites.ts';

/**
 * Whether `next` (a patch's or a written flag's variants) changes what an existing variant
 * serves: a value replaced, or the variant removed. Variants are flag-wide, so that changes every
 * environment serving them.
 */
export function changesVariantValues(current: readonly Variant[], next: unknown): boolean {
  if (!Array.isArray(next)) return false;
  const values = new Map(next.filter(isPlainObject).map((variant) => [variant.key, variant.value] as const));
  return current.some(
    (variant) => !values.has(variant.key) || !isDeepStrictEqual(values.get(variant.key), variant.value),
  );
}

/**
 * The environments whose evaluation a flag's changes reach: those they configure, and all of the
 * flag's when they change what a variant serves (variants are flag-wide, decision 1003) or archive
 * or unarchive it (an archived flag is served to no one).
 */
export function environmentsChangedBy(current: Flag, changes: readonly FieldChange[]): string[] {
  const flagWide = changes.some(
    (change) =>
      change.path === '/archived' ||
      (change.path === '/variants' && changesVariantValues(current.variants, change.after)),
  );
  return flagWide ? Object.keys(current.environments) : environmentsOfChanges(changes);
}

/** Archiving and unarchiving are audited as themselves, whatever else the write changed. */
const actionOf = (stored: Flag, next: Flag, otherwise: string): string =>
  next.archived === stored.archived ? otherwise : next.archived ? 'flag.archived' : 'flag.unarchived';

/** Whether a patch sets environment fields at its top level (for `?environment=`). */
const setsEnvironmentFields = (patch: FlagPatch) => ENVIRONMENT_FIELDS.some((f) => patch[f] !== undefined);

/** How a flag write is audited: its action, the one environment it touched, anything else to say. */
interface AuditOf {
  readonly action: string;
  readonly environment?: string | undefined;
  readonly details?: Readonly<Record<string, unknown>>;
}

const onlyOne = (touched: readonly string[]): string | undefined =>
  touched.length === 1 ? touched[0] : undefined;

/** The store roles flag use cases name: projects, flags and segments, the audit log, pending changes. */
export type FlagRoles = ProjectStore & FlagStore & AuditRoles & PendingChangeRole;

/** Flags as the one versioned write stores and audits them (flagd import writes them too). */
export const FLAGS: VersionedKind<Flag, FlagRoles> = {
  ...keyedInProject('flag'),
  insert: (tx, flag) => tx.insertFlag(flag),
  update: (tx, flag, expectedVersion) => tx.updateFlag(flag, expectedVersion),
  remove: (tx, flag) => tx.deleteFlag(flag.id),
  gone: (flag) => flagNotFound(`No flag with id "${flag.id}".`),
};

export class FlagService {
  readonly #deps: WriteDeps<FlagRoles>;

  constructor(deps: WriteDeps<FlagRoles>) {
    this.#deps = deps;
  }

  get #store(): FlagRoles {
    return this.#deps.store;
  }

  /** Lists flags; `environment` (whose `enabled` the caller shows) must exist. */
  async list(
    actor: Actor,
    projectIdOrKey: string,
    environment: string,
    filter: FlagFilter,
    page: PageRequest,
  ): Promise<Page<Flag>> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    if ((await this.#store.findEnvironment(project.id, environment)) === undefined) {
      throw notFound(`No environment "${environment}" in project "${project.key}".`);
    }
    return this.#store.listFlags(project.id, filter, page);
  }

  /** Every tag of the project's flags, sorted: what the list's `?tag=` can choose from. */
  async tags(actor: Actor, projectIdOrKey: string): Promise<readonly string[]> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    return this.#store.flagTags(project.id);
  }

  /**
   * A flag of the project by its key or, as the API's other paths name it, by its `flg_…` id.
   * The key wins: a key may itself look like an id (keys allow "_").
   */
  async get(actor: Actor, projectIdOrKey: string, flagKeyOrId: string): Promise<Flag> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    const byKey = await this.#store.findFlagByKey(project.id, flagKeyOrId);
    const flag =
      byKey ?? (flagKeyOrId.startsWith('flg_') ? await this.#store.findFlagById(flagKeyOrId) : undefined);
    if (flag === undefined || flag.projectId !== project.id) {
      throw flagNotFound(`No flag "${flagKeyOrId}" in project "${project.key}".`);
    }
    return flag;
  }

  /**
   * The project of a flag named by id: the route's grant when it ran (unset when the flag is
   * unknown or another project's: both 404), else the flag's own after the same rules.
   */
  async #projectOfFlag(actor: Actor, flagId: string, role: 'viewer' | 'editor'): Promise<string> {
    if (actor.grant !== undefined) {
      if (actor.grant.projectId === undefined) throw flagNotFound(`No flag with id "${flagId}".`);
      return actor.grant.projectId;
    }
    const flag = await this.#store.findFlagById(flagId);
    if (flag === undefined) throw flagNotFound(`No flag with id "${flagId}".`);
    return (await accessProject(this.#store, actor, flag.projectId, role)).id;
  }

  /** A flag by id, for an actor who may view its project. */
  async getById(actor: Actor, flagId: string): Promise<Flag> {
    return flagOfProject(this.#store, await this.#projectOfFlag(actor, flagId, 'viewer'), flagId);
  }

  async create(actor: Actor, projectIdOrKey: string, input: CreateFlagInput): Promise<Flag> {
    const project = await projectToCreateIn(this.#store, actor, projectIdOrKey);
    const type = input.type ?? 'boolean';
    if (type !== 'boolean' && input.variants === undefined) {
      throw validationFailed(`A ${type} flag needs its variants.`, [
        { path: '/variants', message: `is required for a ${type} flag` },
      ]);
    }
    const variants = input.variants ?? BOOLEAN_VARIANTS;
    return commitProjectChange(
      this.#deps,
      project.id,
      (flag) => ({ written: flag }),
      (tx) =>
        writeVersioned(tx, actor, this.#deps.clock, FLAGS, {
          create: async () => {
            const environments = await tx.listEnvironments(project.id);
            const flag: Flag = {
              ...firstVersion('flg', input, isoTime(this.#deps.clock)),
              projectId: project.id,
              type,
              variants,
              tags: input.tags ?? [],
              archived: false,
              metadata: input.metadata ?? {},
              environments: Object.fromEntries(
                environments.map((e) => [e.key, initialFlagEnvironment(type, variants)]),
              ),
            };
            await validateReferences(tx, flag, new Set(environments.map((e) => e.key)));
            return { next: flag, action: 'flag.created', taken: takenIn(project, 'flag', flag.key) };
          },
        }),
    );
  }

  /**
   * `PATCH` of a flag, by id or by key: checked as if written (rights, validation, If-Match), then
   * through the gate, which writes it or keeps it as a change request.
   */
  async patch(
    actor: Actor,
    flagId: string,
    patch: FlagPatch,
    options: { environment?: string | undefined; ifMatch?: number | undefined },
  ): Promise<Gated<Flag>> {
    const environment = options.environment ?? DEFAULT_ENVIRONMENT;
    const { projectId, stored, next } = await this.preparePatch(actor, flagId, patch, environment);
    checkIfMatch(options.ifMatch, stored.version);
    if (next.archived && !stored.archived) await refuseIfRequired(this.#store, stored, 'archived');
    const changes = flagChanges(stored, next);
    const write = {
      kind: 'flag.patch',
      projectId,
      flagId,
      environment,
      environments: environmentsChangedBy(stored, changes),
      patch,
      changes,
      baseVersion: stored.version,
    } as const;
    return throughGate(this.#deps, actor, write, () =>
      this.#replace(actor, projectId, flagId, options.ifMatch, async (current) => {
        const { next, touched } = this.#mergeField(current, patch, environment);
        return {
          next,
          audit: { action: actionOf(current, next, 'flag.updated'), environment: onlyOne(touched) },
        };
      }),
    );
  }

  /**
   * Checks that the actor may make this patch and that it would give a valid flag now; writes
   * nothing. Answers the flag as it is and as the patch would make it.
   */
  async preparePatch(
    actor: Actor,
    flagId: string,
    patch: FlagPatch,
    environment: string,
  ): Promise<{ projectId: string; stored: Flag; next: Flag }> {
    const projectId = await this.#authorisePatch(actor, flagId, patch, environment);
    const stored = await flagOfProject(this.#store, projectId, flagId);
    const { next } = this.#mergeField(stored, patch, environment);
    await validateReferences(this.#store, next, new Set(Object.keys(stored.environments)), stored);
    return { projectId, stored, next };
  }

  /**
   * Writes a patch that was checked and authorised earlier (a scheduled change, a change request
   * made before changes were recorded) as `actor`. `claim` runs first in the write's transaction:
   * it marks what is being applied, or throws to write nothing (already applied elsewhere,
   * stale); it answers what the write's audit event adds. A patch that no longer validates
   * throws and writes nothing.
   */
  async applyOnBehalf(
    actor: Actor,
    flagId: string,
    patch: FlagPatch,
    environment: string,
    claim: (stored: Flag, tx: FlagRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<Flag> {
    const current = await this.#store.findFlagById(flagId);
    if (current === undefined) throw flagNotFound(`No flag with id "${flagId}".`);
    return this.#replace(actor, current.projectId, flagId, undefined, async (stored, tx) => {
      const details = await claim(stored, tx);
      const { next, touched } = this.#mergeField(stored, patch, environment);
      return {
        next,
        audit: { action: actionOf(stored, next, 'flag.updated'), environment: onlyOne(touched), details },
      };
    });
  }

  /**
   * Writes an approved request's changes over the flag as it is now, as `actor`: only the fields
   * its author changed. `claim` runs first in the transaction (it marks the request applied) and
   * answers the audit event's details; a field someone else wrote since throws `conflict`.
   */
  async applyChangesOnBehalf(
    actor: Actor,
    flagId: string,
    changes: readonly FieldChange[],
    action: 'flag.updated' | 'flag.restored',
    claim: (tx: FlagRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<Flag> {
    const current = await this.#store.findFlagById(flagId);
    if (current === undefined) throw flagNotFound(`No flag with id "${flagId}".`);
    return this.#replace(actor, current.projectId, flagId, undefined, async (stored, tx) => {
      refuseStale(staleChanges(changes, stored));
      const details = await claim(tx);
      const next: Flag = {
        ...applyChanges(stored, changes),
        version: stored.version + 1,
        updatedAt: isoTime(this.#deps.clock),
      };
      const touched = environmentsOfChanges(changes);
      return {
        next,
        audit: { action: actionOf(stored, next, action), environment: onlyOne(touched), details },
      };
    });
  }

  /** Checks that the actor may make this patch, whatever the flag now holds. */
  async checkAccess(actor: Actor, flagId: string, patch: FlagPatch, environment: string): Promise<void> {
    await this.#authorisePatch(actor, flagId, patch, environment);
  }

  /**
   * The flag's history: its own audit events, newest first, for anyone who may read the flag
   * (docs/decisions/1710-flag-history-for-readers.md). The rest of the audit log stays an admin's.
   */
  async history(actor: Actor, flagId: string, page: PageRequest): Promise<Page<AuditEvent>> {
    const flag = await this.getById(actor, flagId);
    return this.#store.listAuditEvents(flag.projectId, { resourceType: 'flag', resourceId: flag.id }, page);
  }

  /** Checks that the actor may write every environment of the flag (a delete, a restore). */
  async checkWholeFlagAccess(actor: Actor, flagId: string): Promise<void> {
    await this.#projectOfFlag(actor, flagId, 'editor');
    requireAllEnvironments(actor.principal);
  }

  /** The flags that list this one as a prerequisite, each with the environments where they do. */
  async dependants(actor: Actor, flagId: string): Promise<{ key: string; environments: string[] }[]> {
    const flag = await this.getById(actor, flagId);
    const flags = await this.#store.flagsNaming(flag.projectId, flag.key);
    return dependantsOf(flag.key, flags).map((key) => {
      const dependant = flags.find((f) => f.key === key) as Flag;
      const environments = Object.entries(dependant.environments)
        .filter(([, config]) => (config.prerequisites ?? []).some((p) => p.flag === flag.key))
        .map(([environment]) => environment);
      return { key, environments };
    });
  }

  /**
   * The project of the flag a patch acts on, once the actor is known to be allowed to make it:
   * the route checked the environments before validation; a direct call (no grant) gets the same
   * rules here, and so do the checks of scheduled changes and change requests.
   */
  async #authorisePatch(
    actor: Actor,
    flagId: string,
    patch: FlagPatch,
    environment: string,
  ): Promise<string> {
    const projectId = await this.#projectOfFlag(actor, flagId, 'editor');
    authorizeEnvironments(actor.principal, accessScope(patchReach(patch, environment)));
    return projectId;
  }

  /** `stored` with `patch` applied (not yet validated), and the environments it touches. */
  #mergeField(stored: Flag, patch: FlagPatch, environment: string): { next: Flag; touched: string[] } {
    if (patch.type !== undefined && patch.type !== stored.type) {
      throw validationFailed('The type of a flag cannot change; create a new flag instead.', [
        { path: '/type', message: `is ${stored.type} and cannot change` },
      ]);
    }
    const touched = [...patchReach(patch, environment).environments];
    for (const key of touched) {
      if (stored.environments[key] === undefined) {
        throw notFound(`No environment "${key}" in the flag's project.`);
      }
    }
    return { next: this.#applyPatch(stored, patch, environment), touched };
  }

  /**
   * Writes the flag as it was at `version` (from the audit log) as its next version (docs/product.md §10),
   * through the gate. Environments created since keep their current configuration; deleted ones
   * are left out.
   */
  async restore(actor: Actor, flagId: string, version: number, options: IfMatch): Promise<Gated<Flag>> {
    const { projectId, stored } = await this.#wholeFlagWrite(actor, flagId, options.ifMatch);
    const restored = this.#restored(
      stored,
      await versionFromAudit<Flag>(this.#store, projectId, 'flag', flagId, version),
    );
    await validateReferences(this.#store, restored, new Set(Object.keys(stored.environments)), stored);
    const changes = flagChanges(stored, restored);
    const write = {
      kind: 'flag.restore',
      projectId,
      flagId,
      environments: environmentsChangedBy(stored, changes),
      patch: { version },
      changes,
      baseVersion: stored.version,
    } as const;
    return throughGate(this.#deps, actor, write, () =>
      this.#replace(actor, projectId, flagId, options.ifMatch, async (current, tx) => {
        const earlier = await versionFromAudit<Flag>(tx, projectId, 'flag', flagId, version);
        return { next: this.#restored(current, earlier), audit: { action: 'flag.restored' } };
      }),
    );
  }

  /** `earlier` as the next version of `stored`: identity kept, environments created since kept, deleted ones left out. */
  #restored(stored: Flag, earlier: Flag): Flag {
    const environments = Object.fromEntries(
      Object.entries(stored.environments).map(([key, config]) => [key, earlier.environments[key] ?? config]),
    );
    return {
      ...earlier,
      id: stored.id,
      projectId: stored.projectId,
      key: stored.key,
      type: stored.type,
      environments,
      version: stored.version + 1,
      createdAt: stored.createdAt,
      updatedAt: isoTime(this.#deps.clock),
    };
  }

  /**
   * The one way a stored flag is rewritten: read and lock it in the transaction, check If-Match,
   * build the next version, validate it, refuse archiving what others require, write it unless
   * another writer got there first, audit it, and mark the change requests it conflicts with.
   */
  async #replace(
    actor: Actor,
    projectId: string,
    flagId: string,
    ifMatch: number | undefined,
    build: (stored: Flag, tx: FlagRoles) => Promise<{ next: Flag; audit: AuditOf }>,
  ): Promise<Flag> {
    const written = (flag: Flag) => ({ written: flag });
    return this.#writeStored(actor, projectId, flagId, ifMatch, written, async (stored, tx) => {
      const { next, audit } = await build(stored, tx);
      // Every flag has a configuration in every environment of its project, so the stored one names them all.
      await validateReferences(tx, next, new Set(Object.keys(stored.environments)), stored);
      if (next.archived && !stored.archived) await refuseIfRequired(tx, stored, 'archived');
      return { next, ...audit };
    });
  }

  /**
   * A write of the stored flag, in a transaction of its own that tells the plane `announced`:
   * the flag is read there and locked until commit (a concurrent write without If-Match waits
   * its turn instead of failing), and the open change requests the write conflicts with are marked.
   */
  #writeStored(
    actor: Actor,
    projectId: string,
    flagId: string,
    ifMatch: number | undefined,
    announced: (flag: Flag) => Change,
    change: (stored: Flag, tx: FlagRoles) => Promise<Outcome<Flag>>,
  ): Promise<Flag> {
    return commitProjectChange(this.#deps, projectId, announced, (tx) =>
      writeVersioned(tx, actor, this.#deps.clock, FLAGS, {
        load: () => flagOfProject(tx, projectId, flagId, { forUpdate: true }),
        ifMatch,
        change: (stored) => change(stored, tx),
        also: (flag, at, gone) => markConflicts(tx, actor, projectId, { flag, gone }, at),
      }),
    );
  }

  /** The flag a write of every environment (a delete, a restore) acts on, once the actor may and If-Match holds. */
  async #wholeFlagWrite(
    actor: Actor,
    flagId: string,
    ifMatch: number | undefined,
  ): Promise<{ projectId: string; stored: Flag }> {
    const projectId = await this.#projectOfFlag(actor, flagId, 'editor');
    if (actor.grant === undefined) requireAllEnvironments(actor.principal);
    const stored = await flagOfProject(this.#store, projectId, flagId);
    checkIfMatch(ifMatch, stored.version);
    return { projectId, stored };
  }

  /** Deletes a flag, through the gate: in a guarded environment a non-admin's delete is a change request. */
  async delete(actor: Actor, flagId: string, options: IfMatch): Promise<Gated<void>> {
    const { projectId, stored } = await this.#wholeFlagWrite(actor, flagId, options.ifMatch);
    await refuseIfRequired(this.#store, stored, 'deleted');
    const write = {
      kind: 'flag.delete',
      projectId,
      flagId,
      environments: Object.keys(stored.environments),
      patch: {},
      changes: [{ path: '', before: stored, after: null }],
      baseVersion: stored.version,
    } as const;
    return throughGate(this.#deps, actor, write, () =>
      this.deleteOnBehalf(actor, projectId, flagId, options.ifMatch),
    );
  }

  /** Deletes a flag as `actor`, whose rights were checked (by `delete`, or when the request was made). */
  async deleteOnBehalf(
    actor: Actor,
    projectId: string,
    flagId: string,
    ifMatch: number | undefined,
    claim?: (tx: FlagRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<void> {
    const removed = (flag: Flag) => ({ removed: flag.key });
    await this.#writeStored(actor, projectId, flagId, ifMatch, removed, async (stored, tx) => {
      await refuseIfRequired(tx, stored, 'deleted');
      // Of two deletes racing past the read, only the one that removed the row audits it.
      return { next: null, action: 'flag.deleted', details: await claim?.(tx) };
    });
  }

  #applyPatch(flag: Flag, patch: FlagPatch, environment: string): Flag {
    const environments: Record<string, FlagEnvironment> = { ...flag.environments };
    // A flag patch carries its top-level environment fields itself: patchEnvironment reads only those.
    const environmentPatches: [string, FlagEnvironmentPatch][] = [
      ...(setsEnvironmentFields(patch) ? [[environment, patch] as [string, FlagEnvironmentPatch]] : []),
      ...Object.entries(patch.environments ?? {}),
    ];
    for (const [key, environmentPatch] of environmentPatches) {
      const current = environments[key];
      if (current !== undefined) environments[key] = patchEnvironment(current, environmentPatch);
    }
    return {
      ...flag,
      name: patch.name ?? flag.name,
      description: patch.description === null ? '' : (patch.description ?? flag.description),
      variants: patch.variants ?? flag.variants,
      tags: patch.tags === null ? [] : (patch.tags ?? flag.tags),
      metadata:
        patch.metadata === undefined
          ? flag.metadata
          : // The patch schema lets metadata values be any JSON (only creation restricts them).
            ((mergePatch(flag.metadata, patch.metadata) ?? {}) as FlagMetadata),
      archived: patch.archived ?? flag.archived,
      version: flag.version + 1,
      updatedAt: isoTime(this.#deps.clock),
      environments,
    };
  }
}

/**
 * Refuses a flag whose configuration names environments or segments its project lacks. Only
 * the segments the flag names are read, and they stay locked until the write commits, so a
 * concurrent delete of one of them waits and then sees this flag using it.
 */
async function validateReferences(
  store: FlagStore,
  flag: Flag,
  environmentKeys: ReadonlySet<string>,
  previous?: Flag,
): Promise<void> {
  const segmentKeys = await store.existingSegmentKeys(flag.projectId, segmentsNamedByFlag(flag));
  // JsonLogic targeting is checked where it changes (validateFlag): imported targeting may not compile.
  const errors = validateFlag(flag, environmentKeys, segmentKeys, previous);
  // Other flags are read only when prerequisites are involved, and only those involved (never
  // the whole project: a write costs the same in a project of 100 flags or of 5,000): the flags
  // this one requires, transitively (for cycles), and those that require it when it changes variants.
  if (hasPrerequisites(flag)) errors.push(...validatePrerequisites(flag, await requiredFlags(store, flag)));
  if (previous !== undefined && previous.variants !== flag.variants) {
    errors.push(...requiredVariantsKept(flag, await store.flagsNaming(flag.projectId, flag.key)));
  }
  if (errors.length > 0) throw validationFailed('The flag is not valid.', errors);
}

/** The flags `flag` requires in any environment, and those they require, and so on, by key. */
async function requiredFlags(store: FlagStore, flag: Flag): Promise<Map<string, Flag>> {
  const found = new Map<string, Flag>();
  const named = (f: Flag) =>
    Object.values(f.environments).flatMap((config) => (config.prerequisites ?? []).map((p) => p.flag));
  let next = new Set(named(flag));
  while (next.size > 0) {
    const keys = [...next].filter((key) => key !== flag.key && !found.has(key));
    next = new Set();
    for (const required of await store.flagsByKeys(flag.projectId, keys)) {
      found.set(required.key, required);
      for (const key of named(required)) if (!found.has(key)) next.add(key);
    }
  }
  return found;
}

const hasPrerequisites = (flag: Flag) =>
  Object.values(flag.environments).some((config) => (config.prerequisites?.length ?? 0) > 0);

/** Refuses to delete or archive a flag that live flags still require (docs/product.md §10). */
async function refuseIfRequired(
  store: FlagStore,
  flag: Flag,
  becoming: 'deleted' | 'archived',
): Promise<void> {
  const live = (await store.flagsNaming(flag.projectId, flag.key)).filter((f) => !f.archived);
  const dependants = dependantsOf(flag.key, live);
  if (dependants.length > 0) {
    throw conflict(
      `Flag "${flag.key}" cannot be ${becoming}: it is a prerequisite of ${dependants.map((k) => `"${k}"`).join(', ')}.`,
    );
  }
}

/**
 * A flag's configuration in one environment after a merge patch (RFC 7396: null removes, and
 * removed fields take their defaults). JsonLogic `targeting` is replaced whole: merging two
 * expressions key by key would make a third. Rules sent back with their id keep it, so links to a
 * rule survive edits; new rules get one. The result is validated before it is written (validateFlag).
 */
function patchEnvironment(current: FlagEnvironment, patch: FlagEnvironmentPatch): FlagEnvironment {
  const { defaultRollout, targeting, prerequisites, ...rest } = current;
  const rollout =
    patch.defaultRollout === undefined || patch.defaultRollout === null
      ? mergeField(defaultRollout, patch.defaultRollout)
      : { ...defaultRollout, ...patch.defaultRollout };
  const rules = mergeField<readonly (TargetingRule | TargetingRuleInput)[]>(current.rules, patch.rules) ?? [];
  const required = mergeField(prerequisites, patch.prerequisites);
  const jsonLogic = mergeField(targeting, patch.targeting);
  return {
    ...rest,
    enabled: patch.enabled ?? current.enabled,
    offVariant: mergeField(current.offVariant, patch.offVariant) ?? null,
    defaultVariant: mergeField(current.defaultVariant, patch.defaultVariant) ?? null,
    targets: mergeField(current.targets, patch.targets) ?? [],
    // A rule as sent becomes a TargetingRule here; validateFlag refuses it before it is written if it is not one.
    rules: rules.map(
      (rule) =>
        ({
          ...rule,
          id: rule.id ?? newId('rul'),
          segments: rule.segments ?? [],
          conditions: rule.conditions ?? [],
        }) as TargetingRule,
    ),
    ...(required === undefined ? {} : { prerequisites: required }),
    ...(rollout === undefined ? {} : { defaultRollout: rollout }),
    ...(jsonLogic === undefined ? {} : { targeting: jsonLogic }),
  };
}

/**
 * The stored flag, when it is one of the project's (404 otherwise); `forUpdate` inside a write's
 * transaction, so a concurrent write without If-Match waits its turn instead of failing.
 */
async function flagOfProject(store: FlagStore, projectId: string, id: string, options?: ReadOptions) {
  return ofProject(await store.findFlagById(id, options), projectId, () =>
    flagNotFound(`No flag with id "${id}".`),
  );
}
