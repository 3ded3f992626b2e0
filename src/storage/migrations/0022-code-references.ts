import type { Kysely, Migration } from 'kysely';
import { createIndex, createTable } from './schema.ts';

/**
 * Code references (issue 39): where a repository's tracked files name a project's flags, as
 * `flagstaff refs` last reported them for one branch. A report replaces that repository's and
 * branch's rows whole, so the key starts with them. `context` is JSON text (the lines around the
 * match). No foreign key to flags: code may read a flag that was deleted, and saying so is the
 * point. `code_repositories` keeps what each report said of its branch: when, and how to link a line.
 */
export const codeReferences: Migration = {
  async up(db: Kysely<unknown>) {
    await createTable(
      db,
      'code_repositories',
      `project_id text not null references projects.id cascade, repository text not null,
      branch text not null, url_template text, updated_at text not null`,
    )
      .addPrimaryKeyConstraint('code_repositories_pk', ['project_id', 'repository', 'branch'])
      .execute();
    await createTable(
      db,
      'code_references',
      `project_id text not null references projects.id cascade, repository text not null,
      branch text not null, flag_key text not null, path text not null, line integer not null,
      context text not null`,
    )
      .addPrimaryKeyConstraint('code_references_pk', [
        'project_id',
        'repository',
        'branch',
        'path',
        'line',
        'flag_key',
      ])
      .execute();
    // A flag's references, and every flag's count on the stale list.
    await createIndex(db, 'code_references_flag', 'code_references', ['project_id', 'flag_key']);
  },
};
