import type { ReleasePlan, ReleaseTemplate } from '../../domain/release-plan.ts';
import type { ReleaseStore } from '../release-store.ts';
import type { ReleasePlansTable, ReleaseTemplatesTable } from './database.ts';
import { findOne, locked, mapUnique, paged, type SqlContext, touchedOne } from './sql-context.ts';

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
    listTemplates: (projectId, page) =>
      paged(
        db.selectFrom('release_templates').selectAll().where('project_id', '=', projectId),
        { column: 'key', direction: 'asc', of: (r) => r.key },
        page,
        (rows) => rows.map((row) => fromBody<ReleaseTemplate>(row)),
      ),

    findTemplateByKey: (projectId, key) =>
      findOne(
        db
          .selectFrom('release_templates')
          .selectAll()
          .where('project_id', '=', projectId)
          .where('key', '=', key),
        (row) => fromBody<ReleaseTemplate>(row),
      ),

    async insertTemplate(template) {
      await mapUnique(db.insertInto('release_templates').values(templateToRow(template)).execute());
    },

    async updateTemplate(template, expectedVersion) {
      const result = await db
        .updateTable('release_templates')
        .set(templateToRow(template))
        .where('id', '=', template.id)
        .where('version', '=', expectedVersion)
        .executeTakeFirst();
      return touchedOne(result);
    },

    deleteTemplate: async (id) =>
      touchedOne(await db.deleteFrom('release_templates').where('id', '=', id).executeTakeFirst()),

    findPlan: (flagId, environment, options) =>
      findOne(
        plans(options?.forUpdate).where('flag_id', '=', flagId).where('environment', '=', environment),
        planFromRow,
      ),

    findPlanById: (id, options) => findOne(plans(options?.forUpdate).where('id', '=', id), planFromRow),

    async plansWithStatus(statuses) {
      if (statuses.length === 0) return [];
      const rows = await db
        .selectFrom('release_plans')
        .selectAll()
        .where('status', 'in', [...statuses])
        .orderBy('id')
        .execute();
      return rows.map(planFromRow);
    },

    async insertPlan(plan) {
      await mapUnique(db.insertInto('release_plans').values(planToRow(plan)).execute());
    },

    async updatePlan(plan, expectedVersion) {
      const result = await db
        .updateTable('release_plans')
        .set(planToRow(plan))
        .where('id', '=', plan.id)
        .where('version', '=', expectedVersion)
        .executeTakeFirst();
      return touchedOne(result);
    },

    deletePlan: async (id) =>
      touchedOne(await db.deleteFrom('release_plans').where('id', '=', id).executeTakeFirst()),
  };
}
