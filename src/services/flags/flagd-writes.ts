import { isDeepStrictEqual } from 'node:util';
import { requireAllEnvironments } from '../../access/access-rules.ts';
import type { FieldChange } from '../../domain/change-request.ts';
import { isoTime } from '../../domain/clock.ts';
import { type FieldError, notFound, validationFailed } from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';
import { newId } from '../../domain/ids.ts';
import { pointerToken } from '../../domain/json.ts';
import type { Project } from '../../domain/project.ts';
import {
  type FlagdImportWarning,
  type ImportedFlag,
  importFlagd,
  mergeVariants,
} from '../../flagd/import-flagd.ts';
import type { Actor } from '../core/actor.ts';
import { flagChanges, refuseStale, staleChanges } from '../core/field-changes.ts';
import { accessProject } from '../core/project-access.ts';
import { writeVersioned } from '../core/versioned-write.ts';
import { type Approval, type Gated, gatedFor, markConflicts } from '../core/write-gate.ts';
import { type PipelineDeps, runWrite } from '../core/write-pipeline.ts';
import { FLAGS, type FlagRoles, isFlagWideChange } from './flag-kind.ts';
import { initialIn } from './merge-flag.ts';
import { validateFlag } from './validate-flag.ts';

/** What an import did, by flag key. */
export interface FlagdImportResult {
  readonly environment: string;
  readonly created: readonly string[];
  readonly updated: readonly string[];
  /** In the document, and already exactly so in Flagstaff: nothing written, nothing audited. */
  readonly unchanged: readonly string[];
  /** Flags imported as written that will not work as meant (PARSE_ERROR, operators yielding null). */
  readonly warnings: readonly FlagdImportWarning[];
}

/** How an import passes the pipeline. */
export interface FlagdImportOptions {
  readonly strict?: boolean | undefined;
  readonly approval?: Approval | undefined;
  /** An approved request's: the fields it changes must still hold the values it was made against (else `conflict`). */
  readonly changes?: readonly FieldChange[] | undefined;
  /** Marks what is applied (a change request) and answers the audit events' details. */
  readonly claim?: ((tx: FlagRoles) => Promise<Readonly<Record<string, unknown>>>) | undefined;
  /** Added to every audit event's details (`approvalsBypassed` of the command line). */
  readonly details?: Readonly<Record<string, unknown>> | undefined;
}

interface ImportWrite {
  readonly before: Flag | undefined;
  readonly after: Flag;
}

/** Where an import writes, and the environments where a flag it creates waits for a gated write. */
interface ImportTarget {
  readonly project: Project;
  readonly environment: string;
  readonly waiting: ReadonlySet<string>;
}

/** What an import wrote, for its caller and for the plane: every flag as written. */
interface AppliedImport {
  readonly result: FlagdImportResult;
  readonly written: readonly Flag[];
}

interface PreparedImport {
  readonly projectId: string;
  readonly project: Project;
  readonly writes: readonly ImportWrite[];
  readonly unchanged: readonly string[];
  readonly warnings: readonly FlagdImportWarning[];
}

/** `/flags/<key>` as a JSON pointer token. */
const flagPath = (key: string) => `/flags/${pointerToken(key)}`;

/**
 * The environments whose approvals an import needs: the one it configures, and every one of a
 * flag whose flag-wide fields it changes (variant values, archiving, metadata: decision 1851).
 */
function gatedBy(writes: readonly ImportWrite[], environment: string): string[] {
  if (writes.length === 0) return [];
  const gated = new Set([environment]);
  for (const { before, after } of writes) {
    if (
      before !== undefined &&
      flagChanges(before, after).some((change) => isFlagWideChange(before, change))
    ) {
      for (const key of Object.keys(before.environments)) gated.add(key);
    }
  }
  return [...gated];
}

/** The document's flags, or a 400 naming its first problem. */
export function parsedFlagd(document: unknown, options: { readonly strict?: boolean | undefined }) {
  const { flags, errors, warnings } = importFlagd(document, { strict: options.strict === true });
  if (errors.length > 0) {
    const first = errors[0] as FieldError;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more problems)` : '';
    throw validationFailed(
      `The flagd document is not valid: ${first.path}: ${first.message}${more}.`,
      errors,
    );
  }
  return { flags, warnings };
}

/** What an import changes, under each flag's key: a new flag whole, an existing one field by field. */
function importChanges(writes: readonly ImportWrite[]): FieldChange[] {
  return writes.flatMap(({ before, after }) => {
    const prefix = `/${pointerToken(after.key)}`;
    if (before === undefined) return [{ path: prefix, before: null, after }];
    return flagChanges(before, after).map((change) => ({ ...change, path: `${prefix}${change.path}` }));
  });
}

/**
 * A flagd import into one environment, through the one pipeline: the document planned, checked
 * and written all or nothing in one transaction, or kept as a change request. Built by
 * services.ts for the flagd service and change requests; no route receives it.
 */
export class FlagdWrites {
  readonly #deps: PipelineDeps<FlagRoles>;

  constructor(deps: PipelineDeps<FlagRoles>) {
    this.#deps = deps;
  }

  import(
    actor: Actor,
    projectIdOrKey: string,
    environment: string,
    document: unknown,
    options: FlagdImportOptions = {},
  ): Promise<Gated<FlagdImportResult>> {
    const { flags, warnings } = parsedFlagd(document, options);
    const gated = runWrite(this.#deps, actor, {
      approval: options.approval,
      prepare: async (tx) => {
        const project = await accessProject(tx, actor, projectIdOrKey, 'editor', environment);
        if ((await tx.findEnvironment(project.id, environment)) === undefined) {
          throw notFound(`No environment "${environment}" in project "${project.key}".`);
        }
        // An approved import was approved for its own environment: other guarded ones wait as for anyone.
        const approval = options.approval === 'approved' ? 'everyone' : options.approval;
        const waiting = await gatedFor(tx, actor, project.id, approval);
        const plan = await this.#plan(tx, actor, { project, environment, waiting }, flags);
        if (options.changes !== undefined) {
          const current = Object.fromEntries(plan.writes.map((w) => [w.after.key, w.before ?? null]));
          refuseStale(staleChanges(options.changes, current));
        }
        return { projectId: project.id, project, warnings, ...plan };
      },
      gated: ({ writes }) => ({
        kind: 'flagd.import',
        environment,
        environments: gatedBy(writes, environment),
        patch: document as Record<string, unknown>,
        changes: importChanges(writes),
        baseVersion: 0,
      }),
      apply: (tx, prepared) => this.#write(tx, actor, environment, prepared, options),
      // The flags written, patched in one by one as a PATCH is (not the project rebuilt, which
      // made an import of N flags in batches O(N²)); nothing when the document changed none.
      announce: ({ written }) =>
        written.length === 0 ? undefined : { flags: written.map((flag) => ({ written: flag })) },
    });
    return gated.then((done) => ('applied' in done ? { applied: done.applied.result } : done));
  }

  /** Writes the planned flags with their audit events, in the pipeline's transaction. */
  async #write(
    tx: FlagRoles,
    actor: Actor,
    environment: string,
    { project, writes, unchanged, warnings }: PreparedImport,
    options: FlagdImportOptions,
  ): Promise<AppliedImport> {
    const claimed = await options.claim?.(tx);
    const details =
      claimed === undefined && options.details === undefined ? undefined : { ...claimed, ...options.details };
    const written: Flag[] = [];
    for (const { before, after } of writes) {
      const audit = { environment, details };
      const also = (flag: Flag, at: string) => markConflicts(tx, actor, project.id, { flag }, at);
      const flag = await writeVersioned(
        tx,
        actor,
        this.#deps.clock,
        FLAGS,
        before === undefined
          ? {
              create: async () => ({
                next: after,
                action: 'flag.created',
                taken: `A flag "${after.key}" was created in project "${project.key}" meanwhile.`,
                ...audit,
              }),
              also,
            }
          : {
              load: async () => before,
              change: async () => ({ next: after, action: 'flag.updated', ...audit }),
              also,
            },
      );
      written.push(flag);
    }
    const result = {
      environment,
      created: writes.filter((w) => w.before === undefined).map((w) => w.after.key),
      updated: writes.filter((w) => w.before !== undefined).map((w) => w.after.key),
      unchanged,
      warnings,
    };
    return { result, written };
  }

  /** What importing `flags` would write, checked: every problem refuses the whole document. */
  async #plan(
    tx: FlagRoles,
    actor: Actor,
    where: ImportTarget,
    flags: readonly ImportedFlag[],
  ): Promise<{ writes: ImportWrite[]; unchanged: string[] }> {
    const { project, environment } = where;
    const [environments, segments] = await Promise.all([
      tx.listEnvironments(project.id),
      tx.allSegments(project.id),
    ]);
    const environmentKeys = new Set(environments.map((e) => e.key));
    const segmentKeys = new Set(segments.map((s) => s.key));
    const problems: FieldError[] = [];
    const writes: ImportWrite[] = [];
    const unchanged: string[] = [];
    for (const imported of flags) {
      const stored = await tx.findFlagByKey(project.id, imported.key, { forUpdate: true });
      const next = stored
        ? this.#updated(actor, stored, imported, environment, problems)
        : this.#created(actor, where, imported, [...environmentKeys]);
      if (next === undefined) continue;
      if (
        stored !== undefined &&
        isDeepStrictEqual({ ...next, version: 0, updatedAt: '' }, { ...stored, version: 0, updatedAt: '' })
      ) {
        unchanged.push(imported.key);
        continue;
      }
      // The document's targeting was checked above: what cannot work is stored as written, with a warning.
      for (const error of validateFlag(next, environmentKeys, segmentKeys, next)) {
        problems.push({ path: `${flagPath(imported.key)}${error.path}`, message: error.message });
      }
      writes.push({ before: stored, after: next });
    }
    if (problems.length > 0) {
      throw validationFailed('The flagd document cannot be imported into this project.', problems);
    }
    return { writes, unchanged };
  }

  #created(
    actor: Actor,
    { project, environment, waiting }: ImportTarget,
    imported: ImportedFlag,
    environmentKeys: readonly string[],
  ): Flag {
    // A new flag exists in every environment, so only a key for all of them may create one.
    requireAllEnvironments(actor.principal);
    const at = isoTime(this.#deps.clock);
    return {
      id: newId('flg'),
      projectId: project.id,
      key: imported.key,
      name: imported.key,
      description: '',
      type: imported.type,
      variants: imported.variants,
      tags: [],
      archived: false,
      metadata: imported.metadata,
      version: 1,
      createdAt: at,
      updatedAt: at,
      environments: Object.fromEntries(
        environmentKeys.map((key) => [
          key,
          key === environment
            ? imported.environment
            : initialIn(key, waiting, imported.type, imported.variants),
        ]),
      ),
    };
  }

  #updated(
    actor: Actor,
    stored: Flag,
    imported: ImportedFlag,
    environment: string,
    problems: FieldError[],
  ): Flag | undefined {
    if (stored.type !== imported.type) {
      problems.push({
        path: `${flagPath(imported.key)}/variants`,
        message: `flag "${stored.key}" is a ${stored.type} flag; the document's variants are ${imported.type} values`,
      });
      return undefined;
    }
    const variants = mergeVariants(stored.variants, imported.variants);
    const flagWide = {
      variants,
      metadata: imported.metadata,
      // The document serves the flag, so it is no longer retired.
      archived: false,
    };
    if (
      !isDeepStrictEqual(flagWide, {
        variants: stored.variants,
        metadata: stored.metadata,
        archived: stored.archived,
      })
    ) {
      // Variants, metadata and archiving reach every environment.
      requireAllEnvironments(actor.principal);
    }
    return {
      ...stored,
      ...flagWide,
      version: stored.version + 1,
      updatedAt: isoTime(this.#deps.clock),
      environments: { ...stored.environments, [environment]: imported.environment },
    };
  }
}
