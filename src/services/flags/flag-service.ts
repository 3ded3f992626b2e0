import { authorizeEnvironments } from '../../access/access-rules.ts';
import type { AuditEvent } from '../../domain/audit-event.ts';
import { flagNotFound, notFound } from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';
import { DEFAULT_ENVIRONMENT } from '../../domain/project.ts';
import type { FlagBatchItem } from '../../domain/schemas/flag-batch.ts';
import type { CreateFlagInput, FlagPatch } from '../../domain/schemas/flag-input.ts';
import type { FlagFilter, Page, PageRequest } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { commitProjectChange, type WriteDeps } from '../core/commit.ts';
import type { IfMatch } from '../core/if-match.ts';
import { accessProject, projectToCreateIn } from '../core/project-access.ts';
import type { Gated } from '../core/write-gate.ts';
import { FlagBatch, type FlagBatchResult } from './flag-batch.ts';
import { type FlagRoles, flagOfProject } from './flag-kind.ts';
import { FlagWrites } from './flag-writes.ts';
import { accessScope, patchReach } from './patch-reach.ts';
import { dependantsOf } from './validate-prerequisites.ts';

export type { FlagRoles } from './flag-kind.ts';

export class FlagService {
  readonly #deps: WriteDeps<FlagRoles>;
  /** The one write pipeline of stored flags, through the gate with the actor's rights. */
  readonly #writes: FlagWrites;
  /** Many flags' writes in one transaction, each through the same pipeline. */
  readonly #batch: FlagBatch;

  constructor(deps: WriteDeps<FlagRoles>) {
    this.#deps = deps;
    this.#writes = new FlagWrites(deps);
    this.#batch = new FlagBatch(deps, this.#writes);
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
    return commitProjectChange(
      this.#deps,
      project.id,
      (flag) => ({ written: flag }),
      (tx) => this.#writes.createIn(tx, actor, project, input),
    );
  }

  /**
   * Many flags' creations, patches and deletions in one transaction, each as its single route
   * makes it (the gate included), each flag answered on its own (docs/decisions/1960-flag-batches.md).
   */
  batch(actor: Actor, projectIdOrKey: string, items: readonly FlagBatchItem[]): Promise<FlagBatchResult> {
    return this.#batch.write(actor, projectIdOrKey, items);
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
