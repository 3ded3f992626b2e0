import { type Clock, systemClock } from '../domain/clock.ts';
import { type Flag, servedIn } from '../domain/flag.ts';
import type { Segment } from '../domain/segment.ts';
import {
  type CompiledEnvironment,
  ProjectEnvironments,
  withFlags,
} from '../evaluation/compile-environment.ts';
import { VersionedMap } from '../evaluation/versioned-map.ts';
import type { EvaluationSource } from '../storage/store.ts';
import { KeyedQueue } from './keyed-queue.ts';
import { ListenerHub } from './listener-hub.ts';
import type { ProjectChange, ProjectChangeListener, ProjectChanges } from './project-changes.ts';

interface ProjectSnapshot {
  readonly revision: number;
  /** Keyed by environment key, each compiled on first use (or soon after the load: `#compileLater`). */
  readonly environments: ProjectEnvironments;
  /** The stored form the compiled one was built from, for readers of definitions (flagd export and sync). */
  readonly definitions: StoredDefinitions;
}

/** A project's flags and segments as stored, at the snapshot's revision. */
export interface ProjectDefinitions {
  readonly revision: number;
  /** Every flag (archived ones too), in key order. */
  readonly flags: readonly Flag[];
  /** Every segment, in key order. */
  readonly segments: readonly Segment[];
}

/**
 * Flags by key, so a write patches one in O(1) rather than copying every flag (50,000 in a large
 * project, a stall on the event loop at every change); listed in key order on demand.
 */
class StoredDefinitions {
  readonly #flags: VersionedMap<string, Flag>;
  readonly segments: readonly Segment[];
  #listed: readonly Flag[] | undefined;

  constructor(flags: VersionedMap<string, Flag>, segments: readonly Segment[]) {
    this.#flags = flags;
    this.segments = segments;
  }

  get flags(): readonly Flag[] {
    this.#listed ??= [...this.#flags.entries()]
      .map(([, flag]) => flag)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return this.#listed;
  }

  with(writes: readonly FlagWrite[]): StoredDefinitions {
    const flags = this.#flags.updated(
      writes.map((write) =>
        'written' in write ? [write.written.key, write.written] : [write.removed, undefined],
      ),
    );
    return new StoredDefinitions(flags, this.segments);
  }
}

/**
 * How many flags the background compiles a turn of the event loop: ~10 ms of work at the issue's
 * flag shape, so requests and the database pool's connections are served between turns.
 */
const FLAGS_COMPILED_PER_TURN = 1000;

/** One flag as a committed write left it: as written, or the key of a deleted flag. */
export type FlagWrite = { readonly written: Flag } | { readonly removed: string };

/**
 * What a committed write changed, so the snapshot can be patched rather than rebuilt: one flag
 * written or deleted, several (a flagd import, a batch: `flags`, each key once), or anything
 * else of the project (rebuild).
 */
export type Change = FlagWrite | { readonly flags: readonly FlagWrite[] } | 'project';

/** The flags a change wrote or deleted; undefined when it changed the project otherwise. */
export function flagWritesOf(change: Change): readonly FlagWrite[] | undefined {
  if (change === 'project') return undefined;
  return 'flags' in change ? change.flags : [change];
}

/**
 * Several committed writes' changes told as one (a batch's): their flags, each as its last write
 * left it, or the project when any of them changed more than flags.
 */
export function combinedChange(changes: readonly Change[]): Change {
  const last = new Map<string, FlagWrite>();
  for (const change of changes) {
    const writes = flagWritesOf(change);
    if (writes === undefined) return 'project';
    for (const write of writes) last.set('written' in write ? write.written.key : write.removed, write);
  }
  const flags = [...last.values()];
  return flags.length === 1 ? (flags[0] as FlagWrite) : { flags };
}

/** What `writes` make of one environment: each flag as written where it is served there, else gone from it. */
function patchFor(writes: readonly FlagWrite[], environmentKey: string): Map<string, Flag | undefined> {
  const patch = new Map<string, Flag | undefined>();
  for (const write of writes) {
    if ('removed' in write) patch.set(write.removed, undefined);
    else patch.set(write.written.key, servedIn(write.written, environmentKey) ? write.written : undefined);
  }
  return patch;
}

/**
 * Each node's compiled, in-memory evaluation state, one snapshot per project and environment.
 * Evaluation reads only these; writes refresh them before they answer, and `syncAll` (driven by
 * the change feed) picks up writes made by other nodes (they bump the project's revision).
 */
export class SnapshotRegistry implements ProjectChanges {
  readonly #source: EvaluationSource;
  /** Told of every snapshot that moved to a newer revision, for the real-time streams. */
  readonly #changes = new ListenerHub<ProjectChange>();
  readonly #changedAt = new Map<string, number>();
  readonly #projects = new Map<string, ProjectSnapshot>();
  /** Project key or id as named in requests → project id, so the hot path does not ask the database. */
  #projectIds = new Map<string, string>();
  /** The revisions the last `syncAll` brought the node to. */
  #seen: ReadonlyMap<string, number> = new Map();
  /** One refresh at a time per project, so a slow reload never overwrites a newer one. */
  readonly #queues = new KeyedQueue();

  /** While true, environments no request asked for wait to be compiled (`compileInBackground`). */
  #backgroundHeld = false;

  /** Stamps when a revision moved (`changedAt`, the `at` of published changes). */
  readonly #clock: Clock;

  constructor(source: EvaluationSource, clock: Clock = systemClock) {
    this.#source = source;
    this.#clock = clock;
  }

  /** The compiled environment when loaded; `undefined` when not loaded yet (call `environment`). */
  peek(projectId: string, environmentKey: string): CompiledEnvironment | undefined {
    return this.#projects.get(projectId)?.environments.get(environmentKey);
  }

  /** The compiled environment, loading the project on first use; `null` when the environment does not exist. */
  async environment(projectId: string, environmentKey: string): Promise<CompiledEnvironment | null> {
    const loaded =
      this.#projects.get(projectId) ?? (await this.#serialise(projectId, () => this.#load(projectId)));
    return loaded.environments.get(environmentKey) ?? null;
  }

  /** Applies a committed write that moved the project to `revision`. */
  async changed(projectId: string, revision: number, change: Change): Promise<void> {
    await this.#serialise(projectId, async () => {
      const current = this.#projects.get(projectId);
      // Not loaded, or at `revision` already: the change feed told this node of its own write
      // before the write itself did (a reload here would read the whole project again).
      if (current === undefined || current.revision >= revision) return;
      const writes = flagWritesOf(change);
      // A patch is only safe when no other node wrote in between; otherwise rebuild.
      if (writes === undefined || current.revision !== revision - 1) {
        await this.#load(projectId);
        return;
      }
      const definitions = current.definitions.with(writes);
      const environments = current.environments.with(
        (compiled, key) => withFlags(compiled, patchFor(writes, key)),
        () => definitions.flags,
      );
      this.#install(projectId, { revision, environments, definitions });
    });
  }

  /**
   * The project's flags and segments as stored, from memory once loaded (flagd export and sync
   * read these, so they keep answering while the database is away). Loads the project on first use.
   */
  async definitions(projectId: string): Promise<ProjectDefinitions> {
    const loaded =
      this.#projects.get(projectId) ?? (await this.#serialise(projectId, () => this.#load(projectId)));
    return {
      revision: loaded.revision,
      flags: loaded.definitions.flags,
      segments: loaded.definitions.segments,
    };
  }

  subscribe(projectId: string, listener: ProjectChangeListener): () => void {
    return this.#changes.subscribe(projectId, listener);
  }

  /** The projects loaded, by id (what an edge's stream offers, narrowed to its scope). */
  loadedProjects(): readonly string[] {
    return [...this.#projects.keys()];
  }

  revisionOf(projectId: string): number | undefined {
    return this.#projects.get(projectId)?.revision;
  }

  changedAt(projectId: string): number | undefined {
    return this.#changedAt.get(projectId);
  }

  /** Replaces a project's snapshot, telling subscribers when its revision moved. */
  #install(projectId: string, snapshot: ProjectSnapshot): void {
    const previous = this.#projects.get(projectId);
    this.#projects.set(projectId, snapshot);
    if (previous !== undefined && snapshot.revision > previous.revision) {
      const at = this.#clock();
      this.#changedAt.set(projectId, at);
      this.#changes.publish(projectId, { projectId, revision: snapshot.revision, at });
    }
  }

  /** The project id a key or id named in a request resolved to, while that project lives. */
  projectIdFor(reference: string): string | undefined {
    return this.#projectIds.get(reference);
  }

  rememberProjectId(reference: string, projectId: string): void {
    this.#projectIds.set(reference, projectId);
  }

  /** Drops a deleted project's snapshot and every reference to it, so its key can name a new project. */
  forget(projectId: string): void {
    this.#projects.delete(projectId);
    this.#changedAt.delete(projectId);
    for (const [reference, id] of this.#projectIds) if (id === projectId) this.#projectIds.delete(reference);
  }

  /**
   * Brings the node up to the database: loads every project it has not loaded, rebuilds those
   * whose revision moved (writes by other nodes), forgets deleted ones, and refreshes the
   * project references (keys and ids) when anything moved. Called at start and by the change feed.
   */
  async syncAll(): Promise<void> {
    const revisions = await this.#source.listRevisions();
    const sameProjects =
      revisions.size === this.#seen.size && [...revisions.keys()].every((id) => this.#seen.has(id));
    if (sameProjects && [...revisions].every(([id, r]) => (this.#projects.get(id)?.revision ?? -1) >= r))
      return;
    for (const projectId of [...this.#projects.keys()]) if (!revisions.has(projectId)) this.forget(projectId);
    if (!sameProjects) await this.#loadReferences();
    await Promise.all(
      [...revisions].map(([projectId, revision]) => {
        const loaded = this.#projects.get(projectId);
        return loaded === undefined || revision > loaded.revision
          ? this.#serialise(projectId, () => this.#load(projectId))
          : undefined;
      }),
    );
    this.#seen = revisions;
  }

  /**
   * A notification that `projectId` moved to `revision` (undefined: deleted): reloads just that
   * project when it is behind; a project this node has never seen takes a full `syncAll`.
   */
  async projectChanged(
    projectId: string,
    revision: number | undefined,
    flags: { readonly written?: readonly string[]; readonly removed?: readonly string[] } = {},
  ): Promise<void> {
    if (revision === undefined) {
      this.forget(projectId);
      return;
    }
    const loaded = this.#projects.get(projectId);
    if (loaded === undefined) return this.syncAll();
    // Only flags changed, and nothing else since: patch them (what the writing node did) rather than reload.
    if (loaded.revision === revision - 1) {
      const writes = await this.#flagWrites(flags);
      if (writes !== undefined) return this.changed(projectId, revision, { flags: writes });
    }
    if (revision > loaded.revision) {
      await this.#serialise(projectId, async () => {
        if (revision > (this.#projects.get(projectId)?.revision ?? -1)) await this.#load(projectId);
      });
    }
  }

  /**
   * The flags a notice names, read as they are stored now (none: the write changed no flag, and
   * nothing else); undefined when it does not say, or one written is gone already (a later write
   * deleted it: the project is read again instead).
   */
  async #flagWrites(flags: {
    readonly written?: readonly string[];
    readonly removed?: readonly string[];
  }): Promise<FlagWrite[] | undefined> {
    if (flags.written === undefined && flags.removed === undefined) return undefined;
    const { written = [], removed = [] } = flags;
    const read = written.length === 0 ? [] : await this.#source.readFlags(written);
    if (read.length !== new Set(written).size) return undefined;
    return [...read.map((flag) => ({ written: flag })), ...removed.map((key) => ({ removed: key }))];
  }

  /** Project key and id → id for every project, so evaluation names projects without the database. */
  async #loadReferences(): Promise<void> {
    const references = new Map<string, string>();
    for (const project of await this.#source.listProjectKeys()) {
      references.set(project.key, project.id).set(project.id, project.id);
    }
    this.#projectIds = references;
  }

  async #load(projectId: string): Promise<ProjectSnapshot> {
    const { revision, flags, segments, environments } = await this.#source.readProject(projectId);
    const definitions = new StoredDefinitions(
      VersionedMap.of(flags.map((flag) => [flag.key, flag] as const)),
      segments,
    );
    const snapshot: ProjectSnapshot = {
      revision,
      environments: new ProjectEnvironments(
        environments.map((e) => e.key),
        () => definitions.flags,
        segments,
      ),
      definitions,
    };
    this.#install(projectId, snapshot);
    void this.#compileLater(projectId);
    return snapshot;
  }

  /**
   * Holds the compiling of environments no request asked for until `compileInBackground`: while
   * a node starts, every turn of the event loop it gives up (Fastify compiling its routes'
   * schemas) would otherwise go to compiling 50,000 flags, a second before it listens.
   */
  holdBackgroundCompile(): void {
    this.#backgroundHeld = true;
  }

  /**
   * Compiles, in the background, the environments of every loaded project no request asked for
   * (and lets later loads do so); settles once those of the projects loaded now are compiled.
   */
  async compileInBackground(): Promise<void> {
    this.#backgroundHeld = false;
    await Promise.all([...this.#projects.keys()].map((projectId) => this.#compileLater(projectId)));
  }

  /**
   * Compiles the environments no request has asked for yet, a slice of flags a turn of the event loop, so
   * that a node is ready once it has read its projects (decision 2000) and evaluations arriving
   * meanwhile are served between them. Follows the project's newest snapshot (a write may have
   * replaced this one); stops (and settles) when every environment is compiled or the project is gone.
   */
  #compileLater(projectId: string): Promise<void> {
    if (this.#backgroundHeld) return Promise.resolve();
    return new Promise((compiled) => {
      const next = () => {
        const environments = this.#projects.get(projectId)?.environments;
        const [environmentKey] = environments?.pending() ?? [];
        if (environments === undefined || environmentKey === undefined) return compiled();
        environments.compileSome(environmentKey, FLAGS_COMPILED_PER_TURN);
        setImmediate(next);
      };
      setImmediate(next);
    });
  }

  #serialise<T>(projectId: string, work: () => Promise<T>): Promise<T> {
    return this.#queues.run(projectId, work);
  }
}
