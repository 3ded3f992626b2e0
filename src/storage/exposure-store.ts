import type { Exposure } from '../domain/exposure.ts';

/**
 * Exposures of units to experiments (SPEC §13), outside transactions. Writes of several nodes merge
 * whatever their order: a unit keeps the variant of its earliest exposure, and is marked multiple
 * once any two exposures of it differ in variant.
 */
export interface ExposureStore {
  /** Merges the exposures into the stored ones, in one transaction. */
  recordExposures(exposures: readonly Exposure[]): Promise<void>;
  /** The exposures of one experiment in a project, unit order. */
  listExposures(projectId: string, experiment: string): Promise<readonly Exposure[]>;
}
