/** A project's evaluation state moved: this node's snapshot now serves `revision`. */
export interface ProjectChange {
  readonly projectId: string;
  /** The project's revision in the database; it only grows, on every node alike. */
  readonly revision: number;
  /** When this node applied it (ms since the epoch). */
  readonly at: number;
}

export type ProjectChangeListener = (change: ProjectChange) => void;

/**
 * What the real-time streams (SSE, flagd sync, …) subscribe to: every change this node's
 * snapshots take on, whether made here or picked up from another node. The source of the
 * notifications (local writes, polling, a database change feed) is the registry's business.
 */
export interface ProjectChanges {
  /** Calls `listener` after each change of the project; returns the unsubscribe. */
  subscribe(projectId: string, listener: ProjectChangeListener): () => void;
  /** The revision this node serves for the project, once loaded. */
  revisionOf(projectId: string): number | undefined;
  /** When this node last applied a change of the project (ms), if it did since it started. */
  changedAt(projectId: string): number | undefined;
}
