import { type Clock, systemClock } from '../domain/clock.ts';
import type { Store } from '../storage/store.ts';
import { KeyRegistry } from './key-registry.ts';
import { KeyRevocations } from './key-revocations.ts';
import { NodeSync } from './node-sync.ts';
import { RunningExperimentsInMemory } from './running-experiments.ts';
import { SnapshotRegistry } from './snapshots.ts';

/** One node's evaluation plane (decision 1770): what evaluation, streams, sync and admission read. */
export interface Plane {
  /** Per-project snapshots; also every change they take on (`ProjectChanges`) and the node's project references. */
  readonly snapshots: SnapshotRegistry;
  /** Every API key not revoked, in memory (decision 0201). */
  readonly keys: KeyRegistry;
  /** Keys that left the registry, announced to their open streams. */
  readonly revocations: KeyRevocations;
  /** Keeps the snapshots and keys in step with the database once started (decision 0204). */
  readonly sync: NodeSync;
  /** The running experiments, in memory for the evaluation path (decision 1940). */
  readonly runningExperiments: RunningExperimentsInMemory;
}

/** The plane of one node over `store`; the snapshots stamp changes with `clock`. */
export function createPlane(store: Store, clock: Clock = systemClock): Plane {
  const snapshots = new SnapshotRegistry(store, clock);
  const revocations = new KeyRevocations();
  const keys = new KeyRegistry(store, revocations);
  return {
    snapshots,
    keys,
    revocations,
    sync: new NodeSync(snapshots, keys),
    runningExperiments: new RunningExperimentsInMemory(store.experiments),
  };
}
