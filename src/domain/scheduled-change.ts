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
}

/** Thrown inside the write of a scheduled change that another node (or a cancel) settled first; nothing was written. */
export class ScheduledChangeSettled extends Error {
  override name = 'ScheduledChangeSettled';
  constructor(id: string) {
    super(`The scheduled change ${id} is no longer pending.`);
  }
}
