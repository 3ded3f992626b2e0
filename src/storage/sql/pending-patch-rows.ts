import type { PendingFlagPatch } from '../../domain/pending-flag-patch.ts';

/** The columns of a pending flag patch (the scheduled_changes table). */
export interface PendingPatchColumns {
  id: string;
  project_id: string;
  flag_id: string;
  environment: string;
  /** JSON. */
  patch: string;
  comment: string;
}

export const pendingPatchFromRow = (row: PendingPatchColumns): PendingFlagPatch => ({
  id: row.id,
  projectId: row.project_id,
  flagId: row.flag_id,
  environment: row.environment,
  patch: JSON.parse(row.patch),
  comment: row.comment,
});

export const pendingPatchToRow = (pending: PendingFlagPatch): PendingPatchColumns => ({
  id: pending.id,
  project_id: pending.projectId,
  flag_id: pending.flagId,
  environment: pending.environment,
  patch: JSON.stringify(pending.patch),
  comment: pending.comment,
});
