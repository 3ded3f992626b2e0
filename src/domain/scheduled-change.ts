import type { Principal } from './api-key.ts';
import type { PendingFlagPatch } from './pending-flag-patch.ts';

export const SCHEDULED_CHANGE_STATUSES = ['pending', 'applied', 'failed', 'cancelled'] as const;
export type ScheduledChangeStatus = (typeof SCHEDULED_CHANGE_STATUSES)[number];

/** A flag patch to apply at a given time, once, on behalf of whoever scheduled it (docs/product.md §10). */
export interface ScheduledChange extends PendingFlagPatch {
  /** When to apply it (RFC 3339). */
  readonly at: string;
  readonly status: ScheduledChangeStatus;
  /** Who scheduled it: the write is made, and audited, as them. */
  readonly author: Principal;
  readonly createdAt: string;
  /** When it was applied, failed or was cancelled. */
  readonly settledAt: string | null;
  /** Why it failed. */
  readonly failure: string | null;
  /**
   * The change request that approved it, when it was scheduled through one: it runs at its time
   * as approved. Any other passes the gate again when it runs (decision 1852).
   */
  readonly approvedBy?: string;
  /**
   * A release plan's step (SPEC §13): the plan's milestone it moves to. It runs as the plan,
   * approved when the plan started, and only while the plan waits on it and its guards allow.
   */
  readonly releaseStep?: { readonly plan: string; readonly milestone: number };
}

/**
 * Thrown inside the write of a release plan's step whose guards do not let it go yet (one cannot
 * be read, or has not been read since the milestone began): nothing was written; the step waits
 * until `retryAt`, and the plan says why.
 */
export class ScheduledChangeHeld extends Error {
  override name = 'ScheduledChangeHeld';
  readonly retryAt: string;
  constructor(reason: string, retryAt: string) {
    super(reason);
    this.retryAt = retryAt;
  }
}

/** Thrown inside the write of a scheduled change that another node (or a cancel) settled first; nothing was written. */
export class ScheduledChangeSettled extends Error {
  override name = 'ScheduledChangeSettled';
  constructor(id: string) {
    super(`The scheduled change ${id} is no longer pending.`);
  }
}
