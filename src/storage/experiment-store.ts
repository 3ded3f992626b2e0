import type { Experiment, ExperimentStatus } from '../domain/experiment.ts';
import type { Page, PageRequest } from '../domain/page.ts';

/** Experiments of a project (docs/measurement.md): written with their audit event, in its transaction. */
export interface ExperimentStore {
  /** A project's experiments in key order, optionally of one status. */
  listExperiments(
    projectId: string,
    filter: { readonly status?: ExperimentStatus | undefined },
    page: PageRequest,
  ): Promise<Page<Experiment>>;
  findExperimentByKey(projectId: string, key: string): Promise<Experiment | undefined>;
  /** Every experiment of these statuses in every project: what nodes keep in memory and the fold reads. */
  experimentsWithStatus(statuses: readonly ExperimentStatus[]): Promise<readonly Experiment[]>;
  /** The running experiment on a flag in an environment, if any (at most one runs there). */
  runningOn(projectId: string, environment: string, flag: string): Promise<Experiment | undefined>;
  /** Throws UniqueViolation when the key is taken in the project. */
  insertExperiment(experiment: Experiment): Promise<void>;
  /** Writes `experiment` unless the stored version is no longer `expectedVersion` (then false). */
  updateExperiment(experiment: Experiment, expectedVersion: number): Promise<boolean>;
  /** False when there was nothing to delete. */
  deleteExperiment(id: string): Promise<boolean>;
}
