import { authorizeEnvironments } from '../../access/access-rules.ts';
import type { ChangeRequest } from '../../domain/change-request.ts';
import {
  DomainError,
  type FieldError,
  flagNotFound,
  payloadTooLarge,
  validationFailed,
} from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';
import { DEFAULT_ENVIRONMENT, type Project } from '../../domain/project.ts';
import { type FlagBatchItem, MAX_FLAGS_PER_BATCH } from '../../domain/schemas/flag-batch.ts';
import { type Change, combinedChange } from '../../plane/snapshots.ts';
import type { Actor } from '../core/actor.ts';
import { announced, type WriteDeps } from '../core/commit.ts';
import { accessProject } from '../core/project-access.ts';
import type { FlagRoles } from './flag-kind.ts';
import type { FlagWrites } from './flag-writes.ts';
import { accessScope, patchReach } from './patch-reach.ts';

/** What became of one flag of a batch. */
export type FlagBatchOutcome =
  | {
      readonly outcome: 'written' | 'requested';
      /** The flag after its writes; undefined when they deleted it. */
      readonly flag: Flag | undefined;
      readonly changeRequests: readonly ChangeRequest[];
    }
  /** Nothing of the flag was written: `error` is what the single route would have answered. */
  | { readonly outcome: 'refused'; readonly error: DomainError; readonly write: number };

export interface FlagBatchResult {
  readonly flags: readonly (FlagBatchOutcome & { readonly index: number; readonly key: string })[];
}

/** What one flag's writes did, inside its savepoint. */
interface Written {
  readonly flag: Flag | undefined;
  readonly changeRequests: ChangeRequest[];
  readonly changes: Change[];
}

/** The writes a batch cannot mean, refused before anything is read: the whole batch is a 400. */
function problemsOf(items: readonly FlagBatchItem[]): FieldError[] {
  const problems: FieldError[] = [];
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const at = `/flags/${index}`;
    const earlier = seen.get(item.flag);
    if (earlier !== undefined) {
      problems.push({
        path: `${at}/flag`,
        message: `flag "${item.flag}" is also item ${earlier}: name each flag once`,
      });
    }
    seen.set(item.flag, index);
    item.writes.forEach((write, w) => {
      const given = (['create', 'patch', 'delete'] as const).filter((k) => write[k] !== undefined);
      if (given.length !== 1) {
        problems.push({
          path: `${at}/writes/${w}`,
          message: `must have exactly one of create, patch, delete${given.length > 1 ? ` (has ${given.join(', ')})` : ''}`,
        });
      }
      if (write.environment !== undefined && write.patch === undefined) {
        problems.push({ path: `${at}/writes/${w}/environment`, message: 'is only for a patch' });
      }
      if (write.create !== undefined && w > 0) {
        problems.push({
          path: `${at}/writes/${w}/create`,
          message: 'only the first write may create the flag',
        });
      }
      if (write.create !== undefined && item.ifMatch !== undefined) {
        problems.push({ path: `${at}/ifMatch`, message: 'a new flag has no version to match' });
      }
    });
  });
  return problems;
}

/**
 * Many flags' writes in one transaction (docs/decisions/1960-flag-batches.md). Each write goes
 * the way its single route goes (creation, then FlagWrites' pipeline: the same checks, the same
 * gate, an audit event per flag); each flag's writes sit behind a savepoint, so a flag refused is
 * undone alone and answered as its single route would have, and the others commit together. The
 * plane is told once, after commit.
 */
export class FlagBatch {
  readonly #deps: WriteDeps<FlagRoles>;
  readonly #writes: FlagWrites;

  constructor(deps: WriteDeps<FlagRoles>, writes: FlagWrites) {
    this.#deps = deps;
    this.#writes = writes;
  }

  async write(
    actor: Actor,
    projectIdOrKey: string,
    items: readonly FlagBatchItem[],
  ): Promise<FlagBatchResult> {
    if (items.length > MAX_FLAGS_PER_BATCH) {
      throw payloadTooLarge(
        `A batch holds at most ${MAX_FLAGS_PER_BATCH} flags; this one has ${items.length}. Send it in smaller batches.`,
      );
    }
    const problems = problemsOf(items);
    if (problems.length > 0) throw validationFailed('The batch cannot be written as it is.', problems);
    const project = await accessProject(this.#deps.store, actor, projectIdOrKey, 'editor');
    const { flags, told } = await this.#deps.store.transaction(async (tx) => {
      const flags: FlagBatchResult['flags'][number][] = [];
      const changes: Change[] = [];
      for (const [index, item] of items.entries()) {
        const key = item.flag;
        const reached = { write: 0 };
        try {
          const written = await tx.savepoint(() => this.#flag(tx, actor, project, item, reached));
          // A flag's last write is what the plane must show of it.
          const last = written.changes.at(-1);
          if (last !== undefined) changes.push(last);
          flags.push({
            index,
            key,
            outcome: written.changeRequests.length > 0 ? 'requested' : 'written',
            flag: written.flag,
            changeRequests: written.changeRequests,
          });
        } catch (error) {
          // What a single route answers as a problem is this flag's refusal; anything else fails the batch.
          if (!(error instanceof DomainError)) throw error;
          flags.push({ index, key, outcome: 'refused', error, write: reached.write });
        }
      }
      if (changes.length === 0) return { flags, told: undefined };
      // The flags written are patched into the plane as a single write's flag is.
      const change = combinedChange(changes);
      return { flags, told: { change, revision: await tx.bumpRevision(project.id, announced(change)) } };
    });
    if (told !== undefined) await this.#deps.snapshots.changed(project.id, told.revision, told.change);
    return { flags };
  }

  /** One flag's writes in order, each as its single route makes it; the first refused throws. */
  async #flag(
    tx: FlagRoles,
    actor: Actor,
    project: Project,
    item: FlagBatchItem,
    reached: { write: number },
  ): Promise<Written> {
    const written: Written = { flag: undefined, changeRequests: [], changes: [] };
    let flag: Flag | undefined;
    let id: string | undefined;
    for (const [w, write] of item.writes.entries()) {
      reached.write = w;
      // The item's If-Match is the first write's; the flag is locked from then on, so later ones follow from it.
      const ifMatch = w === 0 ? item.ifMatch : undefined;
      // What the single route's access check refuses before it reads the flag: this flag alone, here.
      authorizeEnvironments(
        actor.principal,
        write.patch === undefined
          ? 'all'
          : accessScope(patchReach(write.patch, write.environment ?? DEFAULT_ENVIRONMENT)),
      );
      if (write.create !== undefined) {
        flag = await this.#writes.createIn(tx, actor, project, { ...write.create, key: item.flag });
        id = flag.id;
        written.changes.push({ written: flag });
        continue;
      }
      id ??= (await tx.findFlagByKey(project.id, item.flag))?.id;
      if (id === undefined) throw flagNotFound(`No flag "${item.flag}" in project "${project.key}".`);
      const passed =
        write.delete === true
          ? await this.#writes.deleteIn(tx, actor, id, { ifMatch })
          : await this.#writes.patchIn(
              tx,
              actor,
              id,
              write.patch ?? {},
              write.environment ?? DEFAULT_ENVIRONMENT,
              {
                ifMatch,
              },
            );
      if ('request' in passed) {
        written.changeRequests.push(passed.request);
        continue;
      }
      flag = write.delete === true ? undefined : passed.applied;
      if (passed.change !== undefined) written.changes.push(passed.change);
    }
    return { ...written, flag };
  }
}
