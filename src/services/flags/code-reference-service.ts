import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import {
  type CodeReference,
  type CodeReferenceReport,
  referenceIdentity,
  type StoredCodeReference,
} from '../../domain/code-reference.ts';
import type { CodeReferenceRole, ProjectStore, WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { recordAudit } from '../core/audit.ts';
import { accessProject } from '../core/project-access.ts';
import type { AuditRoles } from '../core/versioned-write.ts';

export type CodeReferenceRoles = ProjectStore & CodeReferenceRole & AuditRoles;

/** What a report did to its branch: nothing when the tree named the flags where it did before. */
export interface CodeReferenceOutcome {
  readonly repository: string;
  readonly branch: string;
  readonly changed: boolean;
  readonly added: number;
  readonly removed: number;
  readonly total: number;
}

const sameReference = (a: CodeReference, b: CodeReference) =>
  a.context.length === b.context.length && a.context.every((line, i) => line === b.context[i]);

/** References of `next` not in `previous` (or whose context changed), by identity. */
function addedTo(previous: readonly CodeReference[], next: readonly CodeReference[]): number {
  const before = new Map(previous.map((reference) => [referenceIdentity(reference), reference]));
  return next.filter((reference) => {
    const was = before.get(referenceIdentity(reference));
    return was === undefined || !sameReference(was, reference);
  }).length;
}

/**
 * Where repositories name a project's flags (issue 39), as `flagstaff refs` reports them: a
 * report replaces its repository's branch. Editors report (a CI job's key), viewers read. A
 * report that changes nothing writes nothing and logs nothing, so a CI run on an unchanged tree
 * leaves no trace; one that changes something is audited with what it added and removed. Code
 * references change no evaluation: they do not pass the approval gate.
 */
export class CodeReferenceService {
  readonly #store: WithTransactions<CodeReferenceRoles>;
  readonly #clock: Clock;

  constructor(store: WithTransactions<CodeReferenceRoles>, clock: Clock = systemClock) {
    this.#store = store;
    this.#clock = clock;
  }

  async replace(
    actor: Actor,
    projectIdOrKey: string,
    report: CodeReferenceReport,
  ): Promise<CodeReferenceOutcome> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'editor');
    const { repository, branch } = report;
    return this.#store.transaction(async (tx) => {
      const stored = await tx.codeReferences.findCodeReport(project.id, repository, branch);
      const previous = stored?.references ?? [];
      const added = addedTo(previous, report.references);
      const removed = addedTo(report.references, previous);
      const total = report.references.length;
      const changed =
        stored === undefined || added > 0 || removed > 0 || stored.urlTemplate !== report.urlTemplate;
      if (!changed) return { repository, branch, changed, added, removed, total };
      const at = isoTime(this.#clock);
      await tx.codeReferences.replaceCodeReport(project.id, report, at);
      await recordAudit(tx, actor, project.id, {
        at,
        action: 'code_references.updated',
        resource: { type: 'code_repository', id: `${repository}#${branch}`, key: repository },
        before: stored === undefined ? null : { references: previous.length },
        after: { branch, references: total, urlTemplate: report.urlTemplate },
        details: { added, removed },
      });
      return { repository, branch, changed, added, removed, total };
    });
  }

  /** Every reference of the project, or of one flag (by key). */
  async list(actor: Actor, projectIdOrKey: string, flag?: string): Promise<StoredCodeReference[]> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    return this.#store.codeReferences.listCodeReferences(project.id, flag);
  }

  /** How many references each flag of the project has (absent: none). */
  async counts(actor: Actor, projectIdOrKey: string): Promise<Map<string, number>> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    return this.#store.codeReferences.countCodeReferences(project.id);
  }
}
