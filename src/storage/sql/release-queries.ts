import type { ReleasePlan, ReleaseTemplate } from '../../domain/release-plan.ts';
import type { ReleaseStore } from '../release-store.ts';
import type { ReleasePlansTable, ReleaseTemplatesTable } from './database.ts';
import { findOne, locked, mapUnique, type SqlContext } from './sql-context.ts';
import { deleteById, projectKeyedRows, updateVersioned, withStatus } from './versioned-rows.ts';

// A template or a plan is one document (its milestones, guards, readings and timeline change
// together); the columns beside it are those a query selects by.

const templateToRow = (t: ReleaseTemplate): ReleaseTemplatesTable => ({
  id: t.id,
  project_id: t.projectId,
  key: t.key,
  body: JSON.stringify(t),
  version: t.version,
  created_at: t.createdAt,
  updated_at: t.updatedAt,
});

const planToRow = (p: ReleasePlan): ReleasePlansTable => ({
  id: p.id,
  project_id: p.projectId,
  flag_id: p.flagId,
  environment: p.environment,
  status: p.status,
  body: JSON.stringify(p),
  version: p.version,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

const fromBody = <T>(row: { body: string }): T => JSON.parse(row.body) as T;

/** A plan as stored; one written before it kept a history of readings has none. */
const planFromRow = (row: { body: string }): ReleasePlan => {
  const plan = fromBody<ReleasePlan>(row);
  return plan.history === undefined ? { ...plan, history: [] } : plan;
};

/** Release templates and plans: the same queries on SQLite and PostgreSQL. */
export function releaseQueries(context: SqlContext): ReleaseStore {
  const { db } = context;
  const plans = (forUpdate: boolean | undefined) =>
    locked(context, db.selectFrom('release_plans').selectAll(), forUpdate === true ? 'update' : undefined);
  return {
    templates: projectKeyedRows(db, 'release_templates', templateToRow, (row) =>
      fromBody<ReleaseTemplate>(row),
    ),

    findPlan: (flagId, environment, options) =>
      findOne(
        plans(options?.forUpdate).where('flag_id', '=', flagId).where('environment', '=', environment),
        planFromRow,
      ),

    findPlanById: (id, options) => findOne(plans(options?.forUpdate).where('id', '=', id), planFromRow),

    plansWithStatus: (statuses) => withStatus(db, 'release_plans', statuses, planFromRow),

    async insertPlan(plan) {
      await mapUnique(db.insertInto('release_plans').values(planToRow(plan)).execute());
    },

    updatePlan: (plan, expectedVersion) =>
      updateVersioned(db, 'release_plans', plan.id, planToRow(plan), expectedVersion),

    deletePlan: (id) => deleteById(db, 'release_plans', id),
  };
}
