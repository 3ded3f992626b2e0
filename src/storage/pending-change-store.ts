import type { ChangeRequest, ChangeRequestStatus } from '../domain/change-request.ts';
import type { Page, PageRequest } from '../domain/page.ts';
import type { ScheduledChange, ScheduledChangeStatus } from '../domain/scheduled-change.ts';

/**
 * Writes that wait (docs/product.md §10): a change request waits for its approvals, a scheduled
 * change for its time. Both are a write kept to be made later on behalf of its author, so they
 * are one table (`pending_changes`, migration 0013) told apart by kind.
 */
export interface PendingKinds {
  readonly request: ChangeRequest;
  readonly schedule: ScheduledChange;
}

export type PendingKind = keyof PendingKinds;

export interface ChangeRequestFilter {
  readonly status?: ChangeRequestStatus | undefined;
  readonly flagId?: string | undefined;
}

/** Change requests and scheduled changes; reached as `store.pendingChanges`, in or out of a transaction. */
export interface PendingChangeStore {
  insert<K extends PendingKind>(kind: K, change: PendingKinds[K]): Promise<void>;
  /** The pending change of this kind with this id (an id of the other kind finds nothing). */
  find<K extends PendingKind>(kind: K, id: string): Promise<PendingKinds[K] | undefined>;

  /** A project's change requests, newest first, optionally of one status and one flag. */
  listRequests(
    projectId: string,
    filter: ChangeRequestFilter,
    page: PageRequest,
  ): Promise<Page<ChangeRequest>>;
  /** Writes the request unless its stored version is no longer `expectedVersion` (then false). */
  updateRequest(request: ChangeRequest, expectedVersion: number): Promise<boolean>;

  /** A flag's scheduled changes, earliest `at` first, optionally of one status. */
  listSchedules(flagId: string, status?: ScheduledChangeStatus): Promise<readonly ScheduledChange[]>;
  /** Pending scheduled changes whose `at` is at or before `now`, earliest first, at most `limit`. */
  due(now: string, limit: number): Promise<readonly ScheduledChange[]>;
  /**
   * Moves a pending scheduled change to `status`: true when this call did it, false when it was
   * no longer pending. In a transaction the row stays locked until the end, so of two nodes
   * settling the same change at once exactly one gets true — and the other only after the first commits.
   */
  settle(
    id: string,
    status: Exclude<ScheduledChangeStatus, 'pending'>,
    at: string,
    failure?: string,
  ): Promise<boolean>;
  /** Moves a pending scheduled change to a later `at` (a held release step); false when it was no longer pending. */
  postpone(id: string, at: string): Promise<boolean>;
}
