import { type Kysely, sql, type Transaction } from 'kysely';
import type { EvaluationSource, Store, StoreRoles } from '../store.ts';
import { accountQueries } from './account-queries.ts';
import { apiKeyQueries } from './api-key-queries.ts';
import { auditQueries } from './audit-queries.ts';
import { codeReferenceQueries } from './code-reference-queries.ts';
import { ComparisonAggregateQueries } from './comparison-aggregate-queries.ts';
import type { Database } from './database.ts';
import { EventQueries } from './event-queries.ts';
import { experimentQueries } from './experiment-queries.ts';
import { ExposureQueries } from './exposure-queries.ts';
import { flagQueries, flagsByIds } from './flag-queries.ts';
import { groupQueries } from './group-queries.ts';
import { InsightsQueries } from './insights-queries.ts';
import { metricQueries } from './metric-queries.ts';
import { pendingChangeQueries } from './pending-change-queries.ts';
import { projectQueries } from './project-queries.ts';
import { releaseQueries } from './release-queries.ts';
import { segmentQueries } from './segment-queries.ts';
import { type SqlContext, sqlContext } from './sql-context.ts';
import { WebhookQueries } from './webhook-queries.ts';

/** What the snapshots read, in one transaction so the revision matches the contents. */
function evaluationSource(context: SqlContext): EvaluationSource {
  const { db } = context;
  return {
    readProject: (projectId) =>
      context.atomically(async (tx) => {
        const revision = await tx.db
          .selectFrom('project_revisions')
          .select('revision')
          .where('project_id', '=', projectId)
          .executeTakeFirst();
        return {
          revision: Number(revision?.revision ?? 0),
          environments: await projectQueries(tx).listEnvironments(projectId),
          flags: await flagQueries(tx).allFlags(projectId),
          segments: await segmentQueries(tx).allSegments(projectId),
        };
      }),

    async listRevisions() {
      const rows = await db.selectFrom('project_revisions').selectAll().execute();
      return new Map(rows.map((r) => [r.project_id, Number(r.revision)]));
    },

    listProjectKeys: () => db.selectFrom('projects').select(['id', 'key']).execute(),

    readFlags: (flagIds) => flagsByIds(db, flagIds),
  };
}

/** Every role over one connection or transaction: the queries of each aggregate, side by side. */
function storeRoles(context: SqlContext): StoreRoles {
  return {
    ...evaluationSource(context),
    ...projectQueries(context),
    ...flagQueries(context),
    ...segmentQueries(context),
    ...apiKeyQueries(context),
    ...accountQueries(context),
    ...groupQueries(context),
    ...auditQueries(context),
    webhooks: new WebhookQueries(context.db),
    pendingChanges: pendingChangeQueries(context),
    metrics: metricQueries(context),
    experiments: experimentQueries(context),
    releases: releaseQueries(context),
    codeReferences: codeReferenceQueries(context),
    transaction: (work) => context.atomically((tx) => work(storeRoles(tx))),
    savepoint: (work) => context.savepoint(work),
  };
}

/** The one Store adapter: Kysely queries that run unchanged on SQLite and PostgreSQL. */
export function createSqlStore(db: Kysely<Database> | Transaction<Database>): Store {
  return {
    ...storeRoles(sqlContext(db)),
    insights: new InsightsQueries(db),
    events: new EventQueries(db),
    exposures: new ExposureQueries(db),
    aggregates: new ComparisonAggregateQueries(db),
    async ping() {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}
