import { sql } from 'kysely';
import { encodeNotice } from '../change-feed/notice-payloads.ts';
import type { EnvironmentStore, ProjectStore } from '../store.ts';
import { environmentFromRow, environmentToRow, projectFromRow, projectToRow } from './rows.ts';
import { findOne, mapUnique, paged, type SqlContext } from './sql-context.ts';
import { allOfProject, deleteById, updateVersioned } from './versioned-rows.ts';

/** Projects, their environments and revisions. */
export function projectQueries(context: SqlContext): ProjectStore {
  const { db, atomically, postgres } = context;
  return {
    ...environmentQueries(context),
    listProjects: (page) =>
      paged(
        db.selectFrom('projects').selectAll(),
        { column: 'key', direction: 'asc', of: (r) => r.key },
        page,
        (rows) => rows.map(projectFromRow),
      ),

    findProject: (idOrKey) =>
      findOne(
        db
          .selectFrom('projects')
          .selectAll()
          .where((eb) => eb.or([eb('id', '=', idOrKey), eb('key', '=', idOrKey)])),
        projectFromRow,
      ),

    insertProject: (project) =>
      atomically(async ({ db }) => {
        await mapUnique(db.insertInto('projects').values(projectToRow(project)).execute());
        await db.insertInto('project_revisions').values({ project_id: project.id, revision: 1 }).execute();
      }),

    updateProject: (project, expectedVersion) =>
      updateVersioned(db, 'projects', project.id, projectToRow(project), expectedVersion),

    deleteProject: (id) => deleteById(db, 'projects', id),

    async bumpRevision(projectId, change) {
      const row = await db
        .updateTable('project_revisions')
        .set((eb) => ({ revision: eb('revision', '+', 1) }))
        .where('project_id', '=', projectId)
        .returning('revision')
        .executeTakeFirstOrThrow();
      const revision = Number(row.revision);
      // The change feed (decision 0204): delivered to every node when this transaction commits,
      // saying what changed so they patch one flag instead of reloading the project.
      if (postgres) {
        for (const payload of encodeNotice(projectId, revision, change)) {
          await sql`select pg_notify('flagstaff_' || current_schema(), ${payload})`.execute(db);
        }
      }
      return revision;
    },
  };
}

function environmentQueries({ db, atomically }: SqlContext): EnvironmentStore {
  return {
    async listEnvironments(projectId) {
      return (await allOfProject(db, 'environments', projectId, 'id')).map(environmentFromRow);
    },

    findEnvironment: (projectId, key) =>
      findOne(
        db.selectFrom('environments').selectAll().where('project_id', '=', projectId).where('key', '=', key),
        environmentFromRow,
      ),

    async insertEnvironment(environment) {
      await mapUnique(db.insertInto('environments').values(environmentToRow(environment)).execute());
    },

    updateEnvironment: (environment, expectedVersion) =>
      updateVersioned(db, 'environments', environment.id, environmentToRow(environment), expectedVersion),

    deleteEnvironment: (id) => deleteById(db, 'environments', id),

    async requiredApprovals(projectId) {
      const rows = await db
        .selectFrom('approval_policies')
        .innerJoin('environments', 'environments.id', 'approval_policies.environment_id')
        .select(['environments.key as key', 'approval_policies.required_approvals as count'])
        .where('environments.project_id', '=', projectId)
        .execute();
      return new Map(rows.map((row) => [row.key, Number(row.count)]));
    },

    setRequiredApprovals: (environmentId, count) =>
      atomically(async ({ db }) => {
        await db.deleteFrom('approval_policies').where('environment_id', '=', environmentId).execute();
        if (count > 0) {
          await db
            .insertInto('approval_policies')
            .values({ environment_id: environmentId, required_approvals: count })
            .execute();
        }
      }),
  };
}
