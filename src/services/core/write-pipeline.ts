import type { ChangeRequest } from '../../domain/change-request.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Change, SnapshotRegistry } from '../../plane/snapshots.ts';
import type { Transactional } from '../../storage/store.ts';
import type { Actor } from './actor.ts';
import { announced } from './commit.ts';
import { type Approval, type Gated, type GatedWrite, type GateRoles, gate } from './write-gate.ts';

/**
 * One write as the pipeline runs it (docs/decisions/1850-one-write-pipeline.md). Every step runs
 * once, in one transaction: `prepare` locks and reads, merges, validates and authorises;
 * `gated` says where the prepared write reaches and what it changes; the gate chooses; then
 * `apply` writes it (with the versioned write) or the change request is all that is written.
 */
export interface PipelineWrite<R, P extends Prepared, T> {
  /** How the gate treats it; default `gate`. */
  readonly approval?: Approval | undefined;
  /** Lock and read, merge, validate, authorise: what the write would make, checked. */
  readonly prepare: (tx: R) => Promise<P>;
  /** The write as the gate sees it: its reach (worked out here, once) and its changes. */
  readonly gated: (prepared: P) => Omit<GatedWrite, 'projectId'>;
  /** Writes it, with its audit event. */
  readonly apply: (tx: R, prepared: P) => Promise<T>;
  /** What evaluations are told after commit; absent or undefined: the write changes no evaluation (a schedule, an import of nothing new). */
  readonly announce?: (result: T) => Change | undefined;
  /** More of the write when the gate opened a change request instead, in the same transaction. */
  readonly requested?: (tx: R, request: ChangeRequest) => Promise<void>;
}

/** What `prepare` answers, at least: the project the write acts in, known once the resource is read. */
export interface Prepared {
  readonly projectId: string;
}

/** What a pipeline stands on: its store roles in transactions, the plane, the clock. */
export interface PipelineDeps<R> {
  readonly store: Transactional<R>;
  readonly snapshots: SnapshotRegistry;
  readonly clock: Clock;
}

/** What a write that passed the pipeline in its caller's transaction did: a change request, or applied with what evaluations must be told after commit. */
export type Passed<T> =
  | { readonly request: ChangeRequest }
  | { readonly applied: T; readonly change: Change | undefined };

/**
 * The pipeline's steps in the caller's transaction, without telling anyone: for a batch that runs
 * many writes in one transaction and tells the plane once, after its commit (flag-batch.ts).
 */
export async function passWrite<R extends GateRoles, P extends Prepared, T>(
  tx: R,
  clock: Clock,
  actor: Actor,
  write: PipelineWrite<R, P, T>,
): Promise<Passed<T> & { readonly projectId: string }> {
  const prepared = await write.prepare(tx);
  const { projectId } = prepared;
  const request =
    write.approval === 'approved'
      ? undefined
      : await gate(tx, clock, actor, { ...write.gated(prepared), projectId }, write.approval);
  if (request !== undefined) {
    await write.requested?.(tx, request);
    return { request, projectId };
  }
  const applied = await write.apply(tx, prepared);
  return { applied, change: write.announce?.(applied), projectId };
}

/** Runs `write` through the pipeline: applied (the plane told after commit), or a change request. */
export async function runWrite<R extends GateRoles, P extends Prepared, T>(
  deps: PipelineDeps<R>,
  actor: Actor,
  write: PipelineWrite<R, P, T>,
): Promise<Gated<T>> {
  const done = await deps.store.transaction(async (tx) => {
    const passed = await passWrite(tx, deps.clock, actor, write);
    if ('request' in passed || passed.change === undefined) return { passed };
    const revision = await tx.bumpRevision(passed.projectId, announced(passed.change));
    return { passed, told: { change: passed.change, revision } };
  });
  const { passed } = done;
  if ('request' in passed) return { request: passed.request };
  if (done.told !== undefined)
    await deps.snapshots.changed(passed.projectId, done.told.revision, done.told.change);
  return { applied: passed.applied };
}
