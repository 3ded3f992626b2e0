import type { Experiment, ExperimentStatus } from '../../domain/experiment.ts';
import type { ExperimentStore } from '../experiment-store.ts';
import type { ExperimentsTable } from './database.ts';
import { findOne, type SqlContext } from './sql-context.ts';
import { keyedList, projectKeyedRows, withStatus } from './versioned-rows.ts';

const experimentToRow = (e: Experiment): ExperimentsTable => ({
  id: e.id,
  project_id: e.projectId,
  key: e.key,
  name: e.name,
  description: e.description,
  flag: e.flag,
  environment: e.environment,
  control: e.control,
  treatments: JSON.stringify(e.treatments),
  metrics: JSON.stringify(e.metrics),
  analysis: JSON.stringify(e.analysis),
  cuped: e.cuped ? 1 : 0,
  status: e.status,
  started_at: e.startedAt,
  stopped_at: e.stoppedAt,
  version: e.version,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

const experimentFromRow = (r: ExperimentsTable): Experiment => ({
  id: r.id,
  projectId: r.project_id,
  key: r.key,
  name: r.name,
  description: r.description,
  flag: r.flag,
  environment: r.environment,
  control: r.control,
  treatments: JSON.parse(r.treatments),
  metrics: JSON.parse(r.metrics),
  analysis: JSON.parse(r.analysis),
  cuped: Number(r.cuped) === 1,
  status: r.status as ExperimentStatus,
  startedAt: r.started_at,
  stoppedAt: r.stopped_at,
  version: Number(r.version),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Experiments: versioned rows of a project, unique by key. */
export function experimentQueries({ db }: SqlContext): ExperimentStore {
  return {
    ...projectKeyedRows(db, 'experiments', experimentToRow, experimentFromRow),
    list: (projectId, filter, page) =>
      keyedList(db, 'experiments', projectId, page, experimentFromRow, filter.status),

    experimentsWithStatus: (statuses) => withStatus(db, 'experiments', statuses, experimentFromRow),

    runningOn: (projectId, environment, flag) =>
      findOne(
        db
          .selectFrom('experiments')
          .selectAll()
          .where('project_id', '=', projectId)
          .where('environment', '=', environment)
          .where('flag', '=', flag)
          .where('status', '=', 'running'),
        experimentFromRow,
      ),
  };
}
