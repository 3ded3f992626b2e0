import type { Role } from '../../domain/api-key.ts';
import { notFound } from '../../domain/errors.ts';
import { type Flag, servedIn } from '../../domain/flag.ts';
import { exportFlagd, FlagdDocumentTexts, type FlagdExport } from '../../flagd/export-flagd.ts';
import { inlinePrerequisites } from '../../flagd/inline-prerequisites.ts';
import type { WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import type { WriteDeps } from '../core/commit.ts';
import { accessProject } from '../core/project-access.ts';
import type { Gated } from '../core/write-gate.ts';
import type { FlagRoles } from './flag-kind.ts';
import { type FlagdImportResult, FlagdWrites } from './flagd-writes.ts';

export type { FlagdImportResult } from './flagd-writes.ts';

/**
 * flagd flag definitions in and out of one environment (docs/product.md §6). The translations are pure
 * functions in src/flagd/; imports go through the one write pipeline (flagd-writes.ts).
 */
export class FlagdService {
  readonly #deps: WriteDeps<FlagRoles>;
  readonly #writes: FlagdWrites;
  /** Made when flagd sync first asks: a node that serves no sync stream keeps no flag texts. */
  #texts: FlagdDocumentTexts | undefined;

  constructor(deps: WriteDeps<FlagRoles>) {
    this.#deps = deps;
    this.#writes = new FlagdWrites(deps);
  }

  get #store(): WithTransactions<FlagRoles> {
    return this.#deps.store;
  }

  async #environmentOf(actor: Actor, projectIdOrKey: string, environment: string, role: Role) {
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
   * stored as written and listed in `warnings`; `strict` refuses the document instead. Through
   * the gate. The command line's operator says how (decision 1853): `approvals: 'required'`
   * gates them like anyone, `'bypassed'` lets an admin through with every audit event saying so.
   */
  import(
    actor: Actor,
    projectIdOrKey: string,
    environment: string,
    document: unknown,
    options: { readonly strict?: boolean; readonly approvals?: 'required' | 'bypassed' } = {},
  ): Promise<Gated<FlagdImportResult>> {
    return this.#writes.import(actor, projectIdOrKey, environment, document, {
      strict: options.strict,
      approval: options.approvals === 'required' ? 'everyone' : 'gate',
      ...(options.approvals === 'bypassed' ? { details: { approvalsBypassed: '--bypass-approvals' } } : {}),
    });
  }

  /**
   * The environment as a flagd document (flags.json schema), non-archived flags only, with what
   * flagd cannot express exactly as warnings.
   */
  /** `leastRole` is evaluator for a flagd sync credential, which reads exactly this document (decision 1974). */
  async export(
    actor: Actor,
    projectIdOrKey: string,
    environment: string,
    leastRole: 'evaluator' | 'viewer' = 'viewer',
  ): Promise<FlagdExport> {
    const project = await this.#environmentOf(actor, projectIdOrKey, environment, leastRole);
    return this.exportEnvironment(project.id, environment);
  }

  /**
   * The export without access checks, for callers that made their own (flagd sync). Built from
   * this node's snapshot, not the database, so it answers while the database is away
   * (docs/decisions/1770).
   */
  async exportEnvironment(projectId: string, environment: string): Promise<FlagdExport> {
    const { flags, segments } = await this.#deps.snapshots.definitions(projectId);
    return exportFlagd(environment, exportedIn(environment, flags), segments);
  }

  /**
   * exportEnvironment's document as JSON text, made from each flag's text kept between calls
   * (decision 2094): what flagd sync sends at every change, costing the flags that changed.
   */
  async exportEnvironmentText(projectId: string, environment: string): Promise<string> {
    const { flags, segments } = await this.#deps.snapshots.definitions(projectId);
    this.#texts ??= new FlagdDocumentTexts();
    return this.#texts.document(environment, exportedIn(environment, flags), segments);
  }
}

/** The flags a flagd document of `environment` holds: prerequisites inlined, none archived or unconfigured there. */
const exportedIn = (environment: string, flags: readonly Flag[]): Flag[] =>
  inlinePrerequisites(environment, flags).filter((flag) => !flag.archived && servedIn(flag, environment));
