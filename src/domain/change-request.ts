import type { PendingFlagPatch } from './pending-flag-patch.ts';

/** Who did something, as the audit log names them. */
export interface Person {
  readonly type: 'api_key' | 'user';
  readonly id: string;
  readonly name: string;
}

export type ChangeRequestStatus = 'open' | 'applied' | 'rejected' | 'withdrawn';
export const CHANGE_REQUEST_STATUSES: readonly ChangeRequestStatus[] = [
  'open',
  'applied',
  'rejected',
  'withdrawn',
];

export interface Approval {
  readonly by: Person;
  readonly at: string;
  readonly comment: string;
}

/**
 * A flag patch waiting for approvals before it is written (docs/product.md §10): made instead of the write
 * when a non-admin changes an environment that requires approvals.
 */
export interface ChangeRequest extends PendingFlagPatch {
  /** The flag's version the patch was made against: applying it to any other is refused. */
  readonly baseVersion: number;
  /** How many approvals it needs (the environment's policy when it was made). */
  readonly requiredApprovals: number;
  readonly author: Person;
  readonly status: ChangeRequestStatus;
  readonly approvals: readonly Approval[];
  /** Who applied, rejected or withdrew it. */
  readonly decidedBy: Person | null;
  /** Why it could not be applied when its approvals were complete (the flag changed meanwhile). */
  readonly failure: string | null;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const samePerson = (a: Person, b: Person) => a.type === b.type && a.id === b.id;

export const personOf = (who: Person): Person => ({ type: who.type, id: who.id, name: who.name });
