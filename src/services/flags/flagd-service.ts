import { isDeepStrictEqual } from 'node:util';
import { requireAllEnvironments } from '../../access/access-rules.ts';
import type { FieldChange } from '../../domain/change-request.ts';
import { isoTime } from '../../domain/clock.ts';
import { type FieldError, notFound, validationFailed } from '../../domain/errors.ts';
import { type Flag, initialFlagEnvironment } from '../../domain/flag.ts';
import { newId } from '../../domain/ids.ts';
import { pointerToken } from '../../domain/json.ts';
import type { Project } from '../../domain/project.ts';
import { exportFlagd, type FlagdExport } from '../../flagd/export-flagd.ts';
import {
  type FlagdImportWarning,
  type ImportedFlag,
  importFlagd,
  mergeVariants,
} from '../../flagd/import-flagd.ts';
import { inlinePrerequisites } from '../../flagd/inline-prerequisites.ts';
import type { WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { commitProjectChange, type WriteDeps } from '../core/commit.ts';
import { flagChanges, refuseStale, staleChanges } from '../core/field-changes.ts';
import { accessProject } from '../core/project-access.ts';
import { writeVersioned } from '../core/versioned-write.ts';
import { type Gated, markConflicts, throughGate } from '../core/write-gate.ts';
import { changesVariantValues, FLAGS, type FlagRoles } from './flag-service.ts';
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

/** `/flags/<key>` as a JSON pointer token. */
const flagPath = (key: string) => `/flags/${pointerToken(key)}`;

/**
 * The environments whose approvals an import needs: the one it configures, and every one of a
 * flag whose variant values it changes (those serve the new values too).
 */
function gatedBy(writes: readonly ImportWrite[], environment: string): string[] {
  if (writes.length === 0) return [];
  const gated = new Set([environment]);
  for (const { before, after } of writes) {
    if (before !== undefined && changesVariantValues(before.variants, after.variants)) {
      for (const key of Object.keys(before.environments)) gated.add(key);
    }
  }
  return [...gated];
}

interface ImportWrite {
  readonly before: Flag | undefined;
  readonly after: Flag;
}

/** The document's flags, or a 400 naming its first problem. */
function parsed(document: unknown, options: { readonly strict?: boolean }) {
  const { flags, errors, warnings } = importFlagd(document, options);
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
 * flagd flag definitions in and out of one environment (docs/product.md §6). The translations are pure
 * functions in src/flagd/; this adds access checks, the one transaction with its audit
 * events, and the snapshot refresh.
 */
export class FlagdService {
  readonly #deps: WriteDeps<FlagRoles>;

  constructor(deps: WriteDeps<FlagRoles>) {
    this.#deps = deps;
  }

  get #store(): WithTransactions<FlagRoles> {
    return this.#deps.store;
  }

  async #environmentOf(actor: Actor, projectIdOrKey: string, environment: string, role: 'viewer' | 'editor') {
    const project = await accessProject(this.#store, actor, projectIdOrKey, role, environment);
    if ((await this.#store.findEnvironment(project.id, environment)) === undefined) {
      throw notFound(`No environment "${environment}" in project "${project.key}".`);
    }
    return project;
  }

  /**
   * Creates or updates the document's flags in one environment, all or nothing: their variants,
   * metadata and this environment's configuration come from the document; other environments
   * and the project's other flags are left as they are. Flags whose targeting cannot work are
   * stored as written and listed in `warnings`; `strict` refuses the document instead.
   */
  async import(
    actor: Actor,
    projectIdOrKey: string,
    environment: string,
    document: unknown,
    options: { readonly strict?: boolean } = {},
  ): Promise<Gated<FlagdImportResult>> {
    const project = await this.#environmentOf(actor, projectIdOrKey, environment, 'editor');
    const { flags, warnings } = parsed(document, options);
    // Planned (and checked) first, so the gate sees exactly what the import would change.
    const plan = await this.#store.transaction((tx) => this.#plan(tx, actor, project, environment, flags));
    const write = {
      kind: 'flagd.import',
      projectId: project.id,
      environment,
      environments: gatedBy(plan.writes, environment),
      patch: document as Record<string, unknown>,
      changes: importChanges(plan.writes),
      baseVersion: 0,
    } as const;
    return throughGate(this.#deps, actor, write, () =>
      this.#write(actor, project, environment, flags, warnings),
    );
  }

  /**
   * Imports an approved document as `actor`: only if the fields it changes still hold the values
   * the request was made against (else `conflict`). `claim` marks the request applied in the
   * write's transaction and answers the audit events' details.
   */
  async importOnBehalf(
    actor: Actor,
    projectId: string,
    environment: string,
    document: unknown,
    changes: readonly FieldChange[],
    claim: (tx: FlagRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<FlagdImportResult> {
    const project = await this.#store.findProject(projectId);
    if (project === undefined) throw notFound(`No project "${projectId}".`);
    const { flags, warnings } = parsed(document, {});
    return this.#write(actor, project, environment, flags, warnings, async (tx, current) => {
      refuseStale(staleChanges(changes, current));
      return claim(tx);
    });
  }

  /** What importing `flags` would write, checked: every problem refuses the whole document. */
  async #plan(
    tx: FlagRoles,
    actor: Actor,
    project: Project,
    environment: string,
    flags: readonly ImportedFlag[],
  ): Promise<{ writes: ImportWrite[]; unchanged: string[] }> {
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
      const stored = await tx.findFlagByKey(project.id, imported.key);
      const next = stored
        ? this.#updated(actor, stored, imported, environment, problems)
        : this.#created(
            actor,
            project,
            imported,
            environment,
            environments.map((e) => e.key),
          );
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

  /** Plans again in the write's transaction, and writes it all or nothing. */
  async #write(
    actor: Actor,
    project: Project,
    environment: string,
    flags: readonly ImportedFlag[],
    warnings: readonly FlagdImportWarning[],
    claim?: (
      tx: FlagRoles,
      current: Record<string, Flag | null>,
    ) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<FlagdImportResult> {
    return commitProjectChange(this.#deps, project.id, 'project', async (tx) => {
      const { writes, unchanged } = await this.#plan(tx, actor, project, environment, flags);
      const current = Object.fromEntries(writes.map((w) => [w.after.key, w.before ?? null]));
      const details = claim === undefined ? undefined : await claim(tx, current);
      for (const { before, after } of writes) {
        const audit = { environment, details };
        const also = (flag: Flag, at: string) => markConflicts(tx, actor, project.id, { flag }, at);
        await writeVersioned(
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
      }
      return {
        environment,
        created: writes.filter((w) => w.before === undefined).map((w) => w.after.key),
        updated: writes.filter((w) => w.before !== undefined).map((w) => w.after.key),
        unchanged,
        warnings,
      };
    });
  }

  #created(
    actor: Actor,
    project: Project,
    imported: ImportedFlag,
    environment: string,
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
            : initialFlagEnvironment(imported.type, imported.variants),
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

  /**
   * The environment as a flagd document (flags.json schema), non-archived flags only, with what
   * flagd cannot express exactly as warnings.
   */
  async export(actor: Actor, projectIdOrKey: string, environment: string): Promise<FlagdExport> {
    const project = await this.#environmentOf(actor, projectIdOrKey, environment, 'viewer');
    return this.exportEnvironment(project.id, environment);
  }

  /**
   * The export without access checks, for callers that made their own (flagd sync). Built from
   * this node's snapshot, not the database, so it answers while the database is away
   * (docs/decisions/1770).
   */
  async exportEnvironment(projectId: string, environment: string): Promise<FlagdExport> {
    const { flags, segments } = await this.#deps.snapshots.definitions(projectId);
    return exportFlagd(
      environment,
      inlinePrerequisites(environment, flags).filter((flag) => !flag.archived),
      segments,
    );
  }
}
