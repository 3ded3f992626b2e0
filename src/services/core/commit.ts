import type { Clock } from '../../domain/clock.ts';
import type { KeyRegistry } from '../../plane/key-registry.ts';
import { type Change, flagWritesOf, type SnapshotRegistry } from '../../plane/snapshots.ts';
import type { FlagChange } from '../../storage/change-feed/change-feed.ts';
import type { ProjectStore, Transactional, WithTransactions } from '../../storage/store.ts';

/** What a use case that writes stands on: the store roles `R` it names, the plane, the clock. */
export interface WriteDeps<R> {
  readonly store: WithTransactions<R>;
  readonly snapshots: SnapshotRegistry;
  /** The one clock every write reads its time from. */
  readonly clock: Clock;
  /** The node's in-memory API keys, for writes that take keys with them (deleting a project). */
  readonly keys?: KeyRegistry;
}

/**
 * Runs a write that changes what a project's evaluations serve: in one transaction with the
 * revision bump (whose trigger notifies other nodes: decision 0204), then refreshes this node's
 * snapshot before returning, so the next evaluation sees the change. `change` says what was
 * written, or how to tell from the write's result, so the snapshot is patched without reading it back.
 */
export async function commitProjectChange<T, R extends ProjectStore>(
  deps: { readonly store: Transactional<R>; readonly snapshots: SnapshotRegistry },
  projectId: string,
  change: Change | ((result: T) => Change),
  work: (tx: R) => Promise<T>,
): Promise<T> {
  const { result, revision, written } = await deps.store.transaction(async (tx) => {
    const result = await work(tx);
    const written = typeof change === 'function' ? change(result) : change;
    return { result, written, revision: await tx.bumpRevision(projectId, announced(written)) };
  });
  await deps.snapshots.changed(projectId, revision, written);
  return result;
}

/** What other nodes are told changed (`bumpRevision`'s `change`): the flags to read again, and those to drop. */
export function announced(change: Change): FlagChange | undefined {
  const writes = flagWritesOf(change);
  if (writes === undefined) return undefined;
  return {
    written: writes.flatMap((write) => ('written' in write ? [write.written.id] : [])),
    removed: writes.flatMap((write) => ('removed' in write ? [write.removed] : [])),
  };
}
