import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processServerSecret } from '../../src/domain/server-secret.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { BackupFileError } from '../../src/storage/backup/backup-file.ts';
import { verifyBackup } from '../../src/storage/backup/read-backup.ts';
import { restoreBackup } from '../../src/storage/backup/restore-backup.ts';
import { writeBackup } from '../../src/storage/backup/write-backup.ts';
import { migrateToLatest, openDatabase } from '../../src/storage/open-database.ts';
import { createSqlStore } from '../../src/storage/sql/sql-store.ts';
import { createTestSchema, POSTGRES_SKIPPED, postgresUrl } from '../support/database.ts';
import { ADMIN_KEY } from '../support/server.ts';

// SQLite stores U+0000 in text and PostgreSQL cannot: a SQLite backup holding one (written before
// the API refused NUL) is refused by a restore into PostgreSQL before anything is written, naming
// the row, and still restores into SQLite (decision 1900).

/** A SQLite backup of a bootstrapped database whose default project's description holds NUL; that project's id. */
async function backupWithNul(file: string): Promise<string> {
  const { db } = openDatabase('sqlite::memory:');
  try {
    await migrateToLatest(db);
    await bootstrap(createSqlStore(db), ADMIN_KEY);
    const project = await db.selectFrom('projects').select('id').executeTakeFirstOrThrow();
    await db.updateTable('projects').set({ description: 'before\u0000after' }).execute();
    await writeBackup(db, file, processServerSecret());
    return project.id;
  } finally {
    await db.destroy();
  }
}

describe('restoring a backup holding NUL', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'flagstaff-restore-nul-'));
    file = join(dir, 'nul.backup');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('into SQLite, keeps the text as it was', async () => {
    await backupWithNul(file);
    const { db } = openDatabase('sqlite::memory:');
    try {
      await restoreBackup(db, file, await verifyBackup(file, { secret: processServerSecret() }));
      const project = await db.selectFrom('projects').select('description').executeTakeFirstOrThrow();
      expect(project.description).toBe('before\u0000after');
    } finally {
      await db.destroy();
    }
  });

  const url = postgresUrl();
  it.skipIf(url === undefined)(
    `into PostgreSQL, names the row and column and writes nothing, not even the schema${url === undefined ? ` — ${POSTGRES_SKIPPED}` : ''}`,
    async () => {
      const id = await backupWithNul(file);
      const schema = await createTestSchema(url as string);
      const { db } = openDatabase(url as string, { schema });
      try {
        const refused = await restoreBackup(
          db,
          file,
          await verifyBackup(file, { secret: processServerSecret() }),
        ).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(BackupFileError);
        expect((refused as Error).message).toContain(
          `table projects, row id = "${id}", column description holds the NUL character (\\u0000)`,
        );
        expect((refused as Error).message).toContain('nothing was written');
        // Not migrated: a second try (after fixing the row) starts from the same empty database.
        const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
        expect(tables.filter((table) => table.schema === schema)).toEqual([]);
      } finally {
        await db.destroy();
      }
    },
  );
});
