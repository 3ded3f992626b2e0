/** Who did something, as the audit log names them. */
export interface Person {
  /** `release_plan`: a plan's own steps and guards (SPEC §13), made as approved when it started. */
  readonly type: 'api_key' | 'user' | 'release_plan';
  readonly id: string;
  readonly name: string;
}

export type ChangeRequestStatus = 'open' | 'applied' | 'rejected' | 'withdrawn' | 'conflicted';
export const CHANGE_REQUEST_STATUSES: readonly ChangeRequestStatus[] = [
  'open',
  'applied',
  'rejected',
  'withdrawn',
  'conflicted',
];

/** The writes that pass the gate (docs/decisions/1700-one-gate.md), as a change request names them. */
export type ChangeRequestKind =
  | 'flag.patch'
  | 'flag.delete'
  | 'flag.restore'
  | 'flag.schedule'
  | 'segment.patch'
  | 'segment.delete'
  | 'flagd.import'
  | 'experiment.start'
  | 'experiment.stop'
  | 'release.start';
export const CHANGE_REQUEST_KINDS: readonly ChangeRequestKind[] = [
  'flag.patch',
  'flag.delete',
  'flag.restore',
  'flag.schedule',
  'segment.patch',
  'segment.delete',
  'flagd.import',
  'experiment.start',
  'experiment.stop',
  'release.start',
];

/**
 * One field a write changes: a JSON pointer into the flag or segment (for a flagd import, into
 * the document's flags, `/<flagKey>/…`), its value when the request was made, and what it becomes.
 */
export interface FieldChange {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
}

export interface Approval {
  readonly by: Person;
  readonly at: string;
  readonly comment: string;
}

/**
 * A write waiting for approvals before it reaches a guarded environment: made instead of the
 * write when a non-admin's write reaches an environment that requires approvals.
 */
export interface ChangeRequest {
  readonly id: string;
  readonly projectId: string;
  readonly flagId: string | null;
  readonly segmentId: string | null;
  /** The guarded environment it waits on (the one the write named, when that one is guarded). */
  readonly environment: string;
  /** Every guarded environment the write reaches. */
  readonly environments: readonly string[];
  readonly kind: ChangeRequestKind;
  /** What was asked: the merge patch, `{ version }` of a restore, `{ at, patch, comment }` of a schedule, `{}` of a delete, the flagd document. */
  readonly patch: Readonly<Record<string, unknown>>;
  /** Only what the author changes, with the values it was based on: applying checks and writes these. */
  readonly changes: readonly FieldChange[];
  readonly comment: string;
  /**
   * The flag's version when the request was made. Requests made before changes were recorded
   * (`changes` empty, `legacy`) are applied only onto this version, as they always were.
   */
  readonly baseVersion: number;
  readonly legacy?: boolean;
  /** How many approvals it needs (the environments' policy when it was made). */
  readonly requiredApprovals: number;
  readonly author: Person;
  readonly status: ChangeRequestStatus;
  /** Why it is conflicted: which field changed since, and by whom. */
  readonly conflict: string | null;
  readonly approvals: readonly Approval[];
  /** Who applied, rejected or withdrew it. */
  readonly decidedBy: Person | null;
  /** Why it could not be applied when its approvals were complete. */
  readonly failure: string | null;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const samePerson = (a: Person, b: Person) => a.type === b.type && a.id === b.id;

export const personOf = (who: Person): Person => ({ type: who.type, id: who.id, name: who.name });
