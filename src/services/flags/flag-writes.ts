import type { ChangeRequest, ChangeRequestKind, FieldChange } from '../../domain/change-request.ts';
import { isoTime } from '../../domain/clock.ts';
import { flagNotFound, validationFailed } from '../../domain/errors.ts';
import { BOOLEAN_VARIANTS, type Flag } from '../../domain/flag.ts';
import type { Project } from '../../domain/project.ts';
import type { CreateFlagInput, FlagPatch } from '../../domain/schemas/flag-input.ts';
import type { Actor } from '../core/actor.ts';
import {
  applyChanges,
  environmentsOfChanges,
  flagChanges,
  refuseStale,
  staleChanges,
} from '../core/field-changes.ts';
import { checkIfMatch } from '../core/if-match.ts';
import { firstVersion, takenIn } from '../core/keyed-resource.ts';
import { versionFromAudit } from '../core/version-history.ts';
import { writeVersioned } from '../core/versioned-write.ts';
import { type Approval, type Gated, gatedFor, markConflicts } from '../core/write-gate.ts';
import { type PipelineDeps, type PipelineWrite, passWrite, runWrite } from '../core/write-pipeline.ts';
import { authoriseWrite } from '../core/write-rights.ts';
import { environmentsChangedBy, FLAGS, type FlagRoles } from './flag-kind.ts';
import { initialIn, mergeFlagPatch, restoredFlag } from './merge-flag.ts';
import { accessScope, patchReach } from './patch-reach.ts';
import { refuseIfRequired, validateReferences } from './validate-references.ts';

/** What a write adds to its audit event's details; it runs first in the write's transaction, once the gate let it through. */
export type Claim = (stored: Flag, tx: FlagRoles) => Promise<Readonly<Record<string, unknown>> | undefined>;

/** How a flag write passes the pipeline beside what it changes. */
export interface FlagWriteOptions {
  readonly ifMatch?: number | undefined;
  readonly approval?: Approval | undefined;
  /** The caller decided the rights (an approved change request: its approver's); else the actor's are checked once, here. */
  readonly authorised?: boolean;
  /** Marks what is being applied (a change request, a scheduled change), or throws to write nothing. */
  readonly claim?: Claim | undefined;
  /** How the change request made instead names the write, when not as the patch it is (a release plan's start). */
  readonly request?: { readonly kind: ChangeRequestKind; readonly patch: Readonly<Record<string, unknown>> };
  /** What else to write when the gate opened a change request instead (a scheduled change settled). */
  readonly requested?: ((tx: FlagRoles, request: ChangeRequest) => Promise<void>) | undefined;
}

/** One kind of flag write: what it makes of the stored flag, how the gate and the audit log name it. */
interface FlagWrite {
  readonly kind: ChangeRequestKind;
  /** The environments the actor must cover. */
  readonly scope: readonly string[] | 'all';
  /** The environment the write names, if any (the request waits on it when guarded). */
  readonly environment?: string | undefined;
  /** What a change request records as its patch. */
  readonly patch: Readonly<Record<string, unknown>>;
  /** The next version (null deletes), not yet validated. */
  readonly build: (stored: Flag, tx: FlagRoles) => Promise<Flag | null>;
  readonly action: (stored: Flag, next: Flag) => string;
  /** The one environment the audit event names. */
  readonly audited?: string | undefined;
}

interface PreparedFlag {
  readonly projectId: string;
  readonly stored: Flag;
  readonly next: Flag | null;
  readonly changes: readonly FieldChange[];
}

/** Deleting a flag reaches every environment it is configured in. */
const DELETE: FlagWrite = {
  kind: 'flag.delete',
  scope: 'all',
  patch: {},
  build: async () => null,
  action: () => 'flag.deleted',
};

/** Archiving and unarchiving are audited as themselves, whatever else the write changed. */
const actionOf = (stored: Flag, next: Flag, otherwise: string): string =>
  next.archived === stored.archived ? otherwise : next.archived ? 'flag.archived' : 'flag.unarchived';

const onlyOne = (touched: readonly string[]): string | undefined =>
  touched.length === 1 ? touched[0] : undefined;

/**
 * Every write of a stored flag, through the one pipeline (core/write-pipeline.ts): patch,
 * restore, delete, and an approved request's changes. Built by services.ts for the flag
 * service, change requests and scheduling; no route receives it, since its options let a
 * caller that decided the rights and approvals itself skip them.
 */
export class FlagWrites {
  readonly #deps: PipelineDeps<FlagRoles>;

  constructor(deps: PipelineDeps<FlagRoles>) {
    this.#deps = deps;
  }

  #now(): string {
    return isoTime(this.#deps.clock);
  }

  /** A merge patch; top-level environment fields are `environment`'s. */
  patch(actor: Actor, flagId: string, patch: FlagPatch, environment: string, options: FlagWriteOptions = {}) {
    return this.#run(actor, flagId, options, this.#patchWrite(patch, environment));
  }

  #patchWrite(patch: FlagPatch, environment: string): FlagWrite {
    // The one place a patch's reach is worked out: access, the environments it must find, the audit event.
    const reach = patchReach(patch, environment);
    return {
      kind: 'flag.patch',
      scope: accessScope(reach),
      environment,
      patch,
      build: async (stored) => mergeFlagPatch(stored, patch, environment, reach, this.#now()),
      action: (stored, next) => actionOf(stored, next, 'flag.updated'),
      audited: onlyOne(reach.environments),
    };
  }

  /**
   * The pipeline's first steps for a patch, in the caller's transaction: the flag read and
   * locked, authorised, merged and validated; for a write that stores the patch to apply later.
   */
  preparePatch(tx: FlagRoles, actor: Actor, flagId: string, patch: FlagPatch, environment: string) {
    return this.#prepare(tx, actor, flagId, {}, this.#patchWrite(patch, environment));
  }

  /** An approved request's changes, over the flag as it is now: a field someone else wrote since throws `conflict`. */
  applyChanges(
    actor: Actor,
    flagId: string,
    changes: readonly FieldChange[],
    action: 'flag.updated' | 'flag.restored',
    options: FlagWriteOptions,
  ) {
    return this.#run(actor, flagId, options, {
      kind: 'flag.patch',
      scope: 'all',
      patch: {},
      build: async (stored) => {
        refuseStale(staleChanges(changes, stored));
        return { ...applyChanges(stored, changes), version: stored.version + 1, updatedAt: this.#now() };
      },
      action: (stored, next) => actionOf(stored, next, action),
      audited: onlyOne(environmentsOfChanges(changes)),
    });
  }

  /**
   * The flag as it was at `version` (from the audit log) as its next version (docs/product.md §10):
   * environments created since keep their configuration, deleted ones are left out.
   */
  restore(actor: Actor, flagId: string, version: number, options: FlagWriteOptions = {}) {
    return this.#run(actor, flagId, options, {
      kind: 'flag.restore',
      scope: 'all',
      patch: { version },
      build: async (stored, tx) =>
        restoredFlag(
          stored,
          await versionFromAudit<Flag>(tx, stored.projectId, 'flag', flagId, version),
          this.#now(),
        ),
      action: () => 'flag.restored',
    });
  }

  /** Deletes the flag; refused (409) while live flags require it. */
  delete(actor: Actor, flagId: string, options: FlagWriteOptions = {}) {
    return this.#run(actor, flagId, options, DELETE);
  }

  /**
   * A new flag in `project`, whose access the caller checked (`projectToCreateIn`), with its audit
   * event, in the caller's transaction. Off in every environment; in a guarded one it waits for
   * a write that passed the gate (decision 1854). Creation is not gated: nothing served changes.
   */
  async createIn(tx: FlagRoles, actor: Actor, project: Project, input: CreateFlagInput): Promise<Flag> {
    const type = input.type ?? 'boolean';
    if (type !== 'boolean' && input.variants === undefined) {
      throw validationFailed(`A ${type} flag needs its variants.`, [
        { path: '/variants', message: `is required for a ${type} flag` },
      ]);
    }
    const variants = input.variants ?? BOOLEAN_VARIANTS;
    return writeVersioned(tx, actor, this.#deps.clock, FLAGS, {
      create: async () => {
        const environments = await tx.listEnvironments(project.id);
        const waiting = await gatedFor(tx, actor, project.id);
        const flag: Flag = {
          ...firstVersion('flg', input, this.#now()),
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
    });
  }

  /** `patch`, in the caller's transaction: the plane is not told (a batch tells it once, after commit). */
  patchIn(
    tx: FlagRoles,
    actor: Actor,
    flagId: string,
    patch: FlagPatch,
    environment: string,
    options: FlagWriteOptions = {},
  ) {
    return passWrite(
      tx,
      this.#deps.clock,
      actor,
      this.#pipeline(actor, flagId, options, this.#patchWrite(patch, environment)),
    );
  }

  /** `delete`, in the caller's transaction: the plane is not told (a batch tells it once, after commit). */
  deleteIn(tx: FlagRoles, actor: Actor, flagId: string, options: FlagWriteOptions = {}) {
    return passWrite(tx, this.#deps.clock, actor, this.#pipeline(actor, flagId, options, DELETE));
  }

  #run(actor: Actor, flagId: string, options: FlagWriteOptions, how: FlagWrite): Promise<Gated<Flag>> {
    return runWrite(this.#deps, actor, this.#pipeline(actor, flagId, options, how));
  }

  #pipeline(
    actor: Actor,
    flagId: string,
    options: FlagWriteOptions,
    how: FlagWrite,
  ): PipelineWrite<FlagRoles, PreparedFlag, Flag> {
    return {
      approval: options.approval,
      prepare: (tx) => this.#prepare(tx, actor, flagId, options, how),
      gated: ({ stored, next, changes }) => ({
        kind: options.request?.kind ?? how.kind,
        flagId,
        environment: how.environment,
        environments:
          next === null ? Object.keys(stored.environments) : environmentsChangedBy(stored, changes),
        patch: options.request?.patch ?? how.patch,
        changes,
        baseVersion: stored.version,
      }),
      apply: async (tx, { stored, next }) => {
        const details = await options.claim?.(stored, tx);
        return writeVersioned(tx, actor, this.#deps.clock, FLAGS, {
          load: async () => stored,
          change: async () => ({
            next,
            action: next === null ? 'flag.deleted' : how.action(stored, next),
            environment: how.audited,
            details,
          }),
          also: (flag, at, gone) => markConflicts(tx, actor, stored.projectId, { flag, gone }, at),
        });
      },
      announce: (flag) => (how.kind === 'flag.delete' ? { removed: flag.key } : { written: flag }),
      requested: options.requested,
    };
  }

  /** Lock and read, authorise, merge, validate: once each, in the write's transaction. */
  async #prepare(
    tx: FlagRoles,
    actor: Actor,
    flagId: string,
    options: FlagWriteOptions,
    how: FlagWrite,
  ): Promise<PreparedFlag> {
    const missing = () => flagNotFound(`No flag with id "${flagId}".`);
    // Read and locked until commit: a concurrent write without If-Match waits its turn instead of failing.
    const stored = await tx.findFlagById(flagId, { forUpdate: true });
    if (stored === undefined) throw missing();
    if (options.authorised !== true) authoriseWrite(actor, stored.projectId, how.scope, missing);
    checkIfMatch(options.ifMatch, stored.version);
    const next = await how.build(stored, tx);
    if (next === null) {
      await refuseIfRequired(tx, stored, 'deleted');
      return {
        projectId: stored.projectId,
        stored,
        next,
        changes: [{ path: '', before: stored, after: null }],
      };
    }
    // Every flag has a configuration in every environment of its project, so the stored one names them all.
    await validateReferences(tx, next, new Set(Object.keys(stored.environments)), stored);
    if (next.archived && !stored.archived) await refuseIfRequired(tx, stored, 'archived');
    return { projectId: stored.projectId, stored, next, changes: flagChanges(stored, next) };
  }
}
