import type { ScheduledChange, ScheduledChangeStatus } from '../domain/scheduled-change.ts';

/** Storage of scheduled changes (docs/product.md §10); reached as `store.scheduledChanges`, in or out of a transaction. */
export interface ScheduledChangeStore {
  insert(change: ScheduledChange): Promise<void>;
  find(id: string): Promise<ScheduledChange | undefined>;
  /** A flag's changes, earliest `at` first, optionally of one status. */
  listForFlag(flagId: string, status?: ScheduledChangeStatus): Promise<readonly ScheduledChange[]>;
  /** Pending changes whose `at` is at or before `now`, earliest first, at most `limit`. */
  due(now: string, limit: number): Promise<readonly ScheduledChange[]>;
  /**
   * Moves a pending change to `status`: true when this call did it, false when it was no longer
   * pending. In a transaction the row stays locked until the end, so of two nodes settling the
   * same change at once exactly one gets true — and the other only after the first commits.
   */
  settle(
    id: string,
    status: Exclude<ScheduledChangeStatus, 'pending'>,
    at: string,
    failure?: string,
  ): Promise<boolean>;
}
