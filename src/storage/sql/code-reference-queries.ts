import { referenceUrl } from '../../domain/code-reference.ts';
import type { CodeReferenceStore } from '../code-reference-store.ts';
import { chunks, ROWS_PER_STATEMENT } from './chunked.ts';
import type { SqlContext } from './sql-context.ts';

type Db = SqlContext['db'];

/** One branch of one repository of a project: the key of a report's rows in both tables. */
interface Branch {
  readonly project_id: string;
  readonly repository: string;
  readonly branch: string;
}

/** A stored reference row as the domain names it. */
const referenceFromRow = (r: { flag_key: string; path: string; line: number | string; context: string }) => ({
  flag: r.flag_key,
  path: r.path,
  line: Number(r.line),
  context: JSON.parse(r.context) as string[],
});

/** Code references: a repository's branch replaced whole, in the caller's transaction. */
export function codeReferenceQueries(context: SqlContext): CodeReferenceStore {
  const { db } = context;
  const branchOf = (project_id: string, repository: string, branch: string): Branch => ({
    project_id,
    repository,
    branch,
  });
  return {
    findCodeReport: (projectId, repository, branch) =>
      findCodeReport(db, branchOf(projectId, repository, branch)),
    replaceCodeReport: (projectId, report, at) =>
      replaceCodeReport(db, branchOf(projectId, report.repository, report.branch), report, at),
    listCodeReferences: (projectId, flag) => listCodeReferences(db, projectId, flag),
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

/** The branch's report as last stored, undefined when it never reported. */
async function findCodeReport(db: Db, branch: Branch): ReturnType<CodeReferenceStore['findCodeReport']> {
  const known = await db
    .selectFrom('code_repositories')
    .selectAll()
    .where((eb) => eb.and(branch))
    .executeTakeFirst();
  if (known === undefined) return undefined;
  const rows = await db
    .selectFrom('code_references')
    .select(['flag_key', 'path', 'line', 'context'])
    .where((eb) => eb.and(branch))
    .orderBy('path')
    .orderBy('line')
    .orderBy('flag_key')
    .execute();
  return {
    repository: branch.repository,
    branch: branch.branch,
    urlTemplate: known.url_template,
    references: rows.map(referenceFromRow),
  };
}

/** The branch's rows deleted from both tables and the report's written in their place. */
async function replaceCodeReport(
  db: Db,
  branch: Branch,
  report: Parameters<CodeReferenceStore['replaceCodeReport']>[1],
  at: string,
): Promise<void> {
  await db
    .deleteFrom('code_references')
    .where((eb) => eb.and(branch))
    .execute();
  await db
    .deleteFrom('code_repositories')
    .where((eb) => eb.and(branch))
    .execute();
  await db
    .insertInto('code_repositories')
    .values({ ...branch, url_template: report.urlTemplate, updated_at: at })
    .execute();
  for (const slice of chunks(report.references, ROWS_PER_STATEMENT)) {
    const rows = slice.map((reference) => ({
      ...branch,
      flag_key: reference.flag,
      path: reference.path,
      line: reference.line,
      context: JSON.stringify(reference.context),
    }));
    await db.insertInto('code_references').values(rows).execute();
  }
}

/** Every reference of a project (or of one flag), with its branch's link and report time. */
async function listCodeReferences(
  db: Db,
  projectId: string,
  flag: string | undefined,
): ReturnType<CodeReferenceStore['listCodeReferences']> {
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
    const reference = referenceFromRow(r);
    return {
      ...reference,
      repository: r.repository,
      branch: r.branch,
      url: referenceUrl(r.url_template, r.branch, reference),
      reportedAt: r.updated_at,
    };
  });
}
