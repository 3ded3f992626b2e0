import type { Experiment, ExperimentStatus } from '../domain/experiment.ts';
import type { Page, PageRequest } from '../domain/page.ts';
import type { ProjectKeyedStore } from './project-keyed-store.ts';

/** Experiments of a project (docs/measurement.md): written with their audit event, in its transaction. */
export interface ExperimentStore extends Omit<ProjectKeyedStore<Experiment>, 'list'> {
  /** A project's experiments in key order, optionally of one status. */
  list(
    projectId: string,
    filter: { readonly status?: ExperimentStatus | undefined },
    page: PageRequest,
  ): Promise<Page<Experiment>>;
  /** Every experiment of these statuses in every project: what nodes keep in memory and the fold reads. */
  experimentsWithStatus(statuses: readonly ExperimentStatus[]): Promise<readonly Experiment[]>;
  /** The running experiment on a flag in an environment, if any (at most one runs there). */
  runningOn(projectId: string, environment: string, flag: string): Promise<Experiment | undefined>;
}
