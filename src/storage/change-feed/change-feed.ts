/**
 * What a node hears about writes it did not make (docs/product.md §8, decision 0204). Notices are hints:
 * the listener compares revisions with the database, so a lost or duplicated notice costs
 * nothing but a later (or an extra) comparison.
 */
/**
 * What one write changed, when it changed only flags (one, or a flagd import's 500): the ids of
 * those written, the keys of those deleted. Other nodes patch those flags instead of reloading
 * the project.
 */
export interface FlagChange {
  readonly written: readonly string[];
  readonly removed: readonly string[];
}

export type ChangeNotice =
  /**
   * A project's revision moved (`revision`), or the project was deleted (`undefined`); `written`
   * (flag ids) and `removed` (flag keys) when the write changed only those flags.
   */
  | {
      readonly kind: 'project';
      readonly projectId: string;
      readonly revision: number | undefined;
      readonly written?: readonly string[];
      readonly removed?: readonly string[];
    }
  /** Some API key was created, revoked, changed or deleted. */
  | { readonly kind: 'keys' }
  /** Anything may have changed: compare everything (a (re)connect, the safety net, SQLite's data_version). */
  | { readonly kind: 'resync' };

export interface ChangeFeedListener {
  changed(notice: ChangeNotice): void;
  /** The feed's own connection was lost (it retries with backoff) or is back. */
  connection(state: 'up' | 'down', error?: unknown): void;
}

export interface ChangeFeed {
  /** Starts listening; notices arrive until `close`. */
  start(listener: ChangeFeedListener): void;
  close(): Promise<void>;
}

export const RESYNC: ChangeNotice = { kind: 'resync' };

/** Waits between reconnection attempts: 100 ms doubling to at most 2 s, so a returning database is seen within seconds. */
export function backoffMs(attempt: number): number {
  return Math.min(2000, 100 * 2 ** attempt);
}
