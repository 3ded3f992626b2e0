import { authorizeEnvironments } from '../../access/access-rules.ts';
import type { AuditEvent } from '../../domain/audit-event.ts';
import { isoTime } from '../../domain/clock.ts';
import { flagNotFound, notFound, validationFailed } from '../../domain/errors.ts';
import { BOOLEAN_VARIANTS, type Flag } from '../../domain/flag.ts';
import { DEFAULT_ENVIRONMENT } from '../../domain/project.ts';
import type { CreateFlagInput, FlagPatch } from '../../domain/schemas/flag-input.ts';
import type { FlagFilter, Page, PageRequest } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { commitProjectChange, type WriteDeps } from '../core/commit.ts';
import type { IfMatch } from '../core/if-match.ts';
import { firstVersion, takenIn } from '../core/keyed-resource.ts';
import { accessProject, projectToCreateIn } from '../core/project-access.ts';
import { writeVersioned } from '../core/versioned-write.ts';
import { type Gated, gatedFor } from '../core/write-gate.ts';
import { FLAGS, type FlagRoles, flagOfProject } from './flag-kind.ts';
import { FlagWrites } from './flag-writes.ts';
import { initialIn } from './merge-flag.ts';
import { accessScope, patchReach } from './patch-reach.ts';
import { dependantsOf } from './validate-prerequisites.ts';
import { validateReferences } from './validate-references.ts';

export type { FlagRoles } from './flag-kind.ts';

export class FlagService {
  readonly #deps: WriteDeps<FlagRoles>;
  /** The one write pipeline of stored flags, through the gate with the actor's rights. */
  readonly #writes: FlagWrites;

  constructor(deps: WriteDeps<FlagRoles>) {
    this.#deps = deps;
    this.#writes = new FlagWrites(deps);
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
            const waiting = await gatedFor(tx, actor, project.id);
            const flag: Flag = {
              ...firstVersion('flg', input, isoTime(this.#deps.clock)),
              projectId: project.id,
              type,
              variants,
              tags: input.tags ?? [],
              archived: false,
              metadata: input.metadata ?? {},
              environments: Object.fromEntries(
                environments.map((e) => [e.key, initialIn(e.key, waiting, type, variants)]),
              ),
            };
            await validateReferences(tx, flag, new Set(environments.map((e) => e.key)));
            return { next: flag, action: 'flag.created', taken: takenIn(project, 'flag', flag.key) };
          },
        }),
    );
  }

  /**
   * `PATCH` of a flag, by id or by key, through the one pipeline: read and locked, authorised,
   * merged and validated in one transaction; then the gate writes it or keeps it as a change request.
   */
  patch(
    actor: Actor,
    flagId: string,
    patch: FlagPatch,
    options: { environment?: string | undefined; ifMatch?: number | undefined },
  ): Promise<Gated<Flag>> {
    const environment = options.environment ?? DEFAULT_ENVIRONMENT;
    return this.#writes.patch(actor, flagId, patch, environment, { ifMatch: options.ifMatch });
  }

  /** Checks that the actor may make this patch, whatever the flag now holds (cancelling a scheduled change). */
  async checkAccess(actor: Actor, flagId: string, patch: FlagPatch, environment: string): Promise<void> {
    await this.#projectOfFlag(actor, flagId, 'editor');
    authorizeEnvironments(actor.principal, accessScope(patchReach(patch, environment)));
  }

  /**
   * The flag's history: its own audit events, newest first, for anyone who may read the flag
   * (docs/decisions/1710-flag-history-for-readers.md). The rest of the audit log stays an admin's.
   */
  async history(actor: Actor, flagId: string, page: PageRequest): Promise<Page<AuditEvent>> {
    const flag = await this.getById(actor, flagId);
    return this.#store.listAuditEvents(
      flag.projectId,
      { resourceType: 'flag', resourceId: flag.id, withChangeRequests: true },
      page,
    );
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
   * Writes the flag as it was at `version` (from the audit log) as its next version (docs/product.md §10),
   * through the gate. Environments created since keep their current configuration; deleted ones
   * are left out.
   */
  restore(actor: Actor, flagId: string, version: number, options: IfMatch): Promise<Gated<Flag>> {
    return this.#writes.restore(actor, flagId, version, { ifMatch: options.ifMatch });
  }

  /** Deletes a flag, through the gate: in a guarded environment a non-admin's delete is a change request. */
  async delete(actor: Actor, flagId: string, options: IfMatch): Promise<Gated<void>> {
    const gated = await this.#writes.delete(actor, flagId, { ifMatch: options.ifMatch });
    return 'request' in gated ? gated : { applied: undefined };
  }
}
