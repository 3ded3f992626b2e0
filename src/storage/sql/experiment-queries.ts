import type { Experiment, ExperimentStatus } from '../../domain/experiment.ts';
import type { ExperimentStore } from '../experiment-store.ts';
import type { ExperimentsTable } from './database.ts';
import { findOne, mapUnique, paged, type SqlContext, touchedOne } from './sql-context.ts';

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
export function experimentQueries(context: SqlContext): ExperimentStore {
  const { db } = context;
  return {
    listExperiments: (projectId, filter, page) => {
      let query = db.selectFrom('experiments').selectAll().where('project_id', '=', projectId);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      return paged(query, { column: 'key', direction: 'asc', of: (r) => r.key }, page, (rows) =>
        rows.map(experimentFromRow),
      );
    },

    findExperimentByKey: (projectId, key) =>
      findOne(
        db.selectFrom('experiments').selectAll().where('project_id', '=', projectId).where('key', '=', key),
        experimentFromRow,
      ),

    async experimentsWithStatus(statuses) {
      if (statuses.length === 0) return [];
      const rows = await db
        .selectFrom('experiments')
        .selectAll()
        .where('status', 'in', [...statuses])
        .orderBy('id')
        .execute();
      return rows.map(experimentFromRow);
    },

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

    async insertExperiment(experiment) {
      await mapUnique(db.insertInto('experiments').values(experimentToRow(experiment)).execute());
    },

    async updateExperiment(experiment, expectedVersion) {
      const result = await db
        .updateTable('experiments')
        .set(experimentToRow(experiment))
        .where('id', '=', experiment.id)
        .where('version', '=', expectedVersion)
        .executeTakeFirst();
      return touchedOne(result);
    },

    async deleteExperiment(id) {
      return touchedOne(await db.deleteFrom('experiments').where('id', '=', id).executeTakeFirst());
    },
  };
}
