import { referenceUrl } from '../../domain/code-reference.ts';
import type { CodeReferenceStore } from '../code-reference-store.ts';
import type { SqlContext } from './sql-context.ts';

/** Rows a statement inserts at most: 7 parameters a row stays far below SQLite's and PostgreSQL's limits. */
const ROWS_PER_INSERT = 500;

/** Code references: a repository's branch replaced whole, in the caller's transaction. */
export function codeReferenceQueries(context: SqlContext): CodeReferenceStore {
  const { db } = context;
  return {
    async findCodeReport(projectId, repository, branch) {
      const known = await db
        .selectFrom('code_repositories')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('repository', '=', repository)
        .where('branch', '=', branch)
        .executeTakeFirst();
      if (known === undefined) return undefined;
      const rows = await db
        .selectFrom('code_references')
        .select(['flag_key', 'path', 'line', 'context'])
        .where('project_id', '=', projectId)
        .where('repository', '=', repository)
        .where('branch', '=', branch)
        .orderBy('path')
        .orderBy('line')
        .orderBy('flag_key')
        .execute();
      return {
        repository,
        branch,
        urlTemplate: known.url_template,
        references: rows.map((r) => ({
          flag: r.flag_key,
          path: r.path,
          line: Number(r.line),
          context: JSON.parse(r.context) as string[],
        })),
      };
    },

    async replaceCodeReport(projectId, report, at) {
      const { repository, branch } = report;
      const ofBranch = { project_id: projectId, repository, branch };
      await db
        .deleteFrom('code_references')
        .where('project_id', '=', projectId)
        .where('repository', '=', repository)
        .where('branch', '=', branch)
        .execute();
      await db
        .deleteFrom('code_repositories')
        .where('project_id', '=', projectId)
        .where('repository', '=', repository)
        .where('branch', '=', branch)
        .execute();
      await db
        .insertInto('code_repositories')
        .values({ ...ofBranch, url_template: report.urlTemplate, updated_at: at })
        .execute();
      for (let start = 0; start < report.references.length; start += ROWS_PER_INSERT) {
        const rows = report.references.slice(start, start + ROWS_PER_INSERT).map((reference) => ({
          ...ofBranch,
          flag_key: reference.flag,
          path: reference.path,
          line: reference.line,
          context: JSON.stringify(reference.context),
        }));
        await db.insertInto('code_references').values(rows).execute();
      }
    },

    async listCodeReferences(projectId, flag) {
      let query = db
        .selectFrom('code_references as r')
        .innerJoin('code_repositories as b', (join) =>
          join
            .onRef('b.project_id', '=', 'r.project_id')
            .onRef('b.repository', '=', 'r.repository')
            .onRef('b.branch', '=', 'r.branch'),
        )
        .select([
          'r.flag_key',
          'r.repository',
          'r.branch',
          'r.path',
          'r.line',
          'r.context',
          'b.url_template',
          'b.updated_at',
        ])
        .where('r.project_id', '=', projectId);
      if (flag !== undefined) query = query.where('r.flag_key', '=', flag);
      const rows = await query
        .orderBy('r.flag_key')
        .orderBy('r.repository')
        .orderBy('r.branch')
        .orderBy('r.path')
        .orderBy('r.line')
        .execute();
      return rows.map((r) => {
        const reference = {
          flag: r.flag_key,
          path: r.path,
          line: Number(r.line),
          context: JSON.parse(r.context) as string[],
        };
        return {
          ...reference,
          repository: r.repository,
          branch: r.branch,
          url: referenceUrl(r.url_template, r.branch, reference),
          reportedAt: r.updated_at,
        };
      });
    },

    async countCodeReferences(projectId) {
      const rows = await db
        .selectFrom('code_references')
        .select(['flag_key', (eb) => eb.fn.countAll<number | string>().as('count')])
        .where('project_id', '=', projectId)
        .groupBy('flag_key')
        .execute();
      return new Map(rows.map((r) => [r.flag_key, Number(r.count)]));
    },
  };
}
