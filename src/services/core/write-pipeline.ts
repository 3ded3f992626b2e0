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
  /** What evaluations are told after commit; absent: the write changes no evaluation (a schedule). */
  readonly announce?: (result: T) => Change;
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

/** Runs `write` through the pipeline: applied (the plane told after commit), or a change request. */
export async function runWrite<R extends GateRoles, P extends Prepared, T>(
  deps: PipelineDeps<R>,
  actor: Actor,
  write: PipelineWrite<R, P, T>,
): Promise<Gated<T>> {
  let projectId = '';
  const done = await deps.store.transaction(async (tx) => {
    const prepared = await write.prepare(tx);
    projectId = prepared.projectId;
    const request =
      write.approval === 'approved'
        ? undefined
        : await gate(tx, deps.clock, actor, { ...write.gated(prepared), projectId }, write.approval);
    if (request !== undefined) {
      await write.requested?.(tx, request);
      return { opened: request, applied: undefined };
    }
    const applied = await write.apply(tx, prepared);
    const change = write.announce?.(applied);
    if (change === undefined) return { opened: undefined, applied };
    return {
      opened: undefined,
      applied,
      told: { change, revision: await tx.bumpRevision(projectId, announced(change)) },
    };
  });
  if (done.opened !== undefined) return { request: done.opened };
  const told = 'told' in done ? done.told : undefined;
  if (told !== undefined) await deps.snapshots.changed(projectId, told.revision, told.change);
  return { applied: done.applied as T };
}
