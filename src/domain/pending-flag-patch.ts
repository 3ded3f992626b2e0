import type { FlagPatch } from './schemas/flag-input.ts';

/** A flag patch, for one environment, that is written later (at its time) rather than now. */
export interface PendingFlagPatch {
  readonly id: string;
  readonly projectId: string;
  readonly flagId: string;
  /** The environment that the patch's environment fields apply to. */
  readonly environment: string;
  /** What `PATCH /v1/flags/{flagId}` accepts. */
  readonly patch: FlagPatch;
  readonly comment: string;
}
