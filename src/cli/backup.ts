import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import { BackupFileError } from '../storage/backup/backup-file.ts';
import { verifyBackup } from '../storage/backup/read-backup.ts';
import { restoreBackup } from '../storage/backup/restore-backup.ts';
import { writeBackup } from '../storage/backup/write-backup.ts';
import { migrateToLatest, openDatabase } from '../storage/open-database.ts';
import type { Database } from '../storage/sql/database.ts';
import { type CliOutput, processOutput } from './operator.ts';

export const BACKUP_USAGE = `  backup     flagstaff backup --to FILE
             write a consistent copy of the whole database (FLAGSTAFF_DATABASE_URL) to FILE
  restore    flagstaff restore --from FILE
             load a backup into an empty database of either kind (docs/decisions/1733)`;

/** `flagstaff backup --to FILE` and `flagstaff restore --from FILE`; returns the exit code. */
export async function runBackupCommand(
  command: 'backup' | 'restore',
  argv: readonly string[],
  config: Config,
  output: CliOutput = processOutput,
): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    strict: false,
    options: { to: { type: 'string' }, from: { type: 'string' } },
  });
  const file = command === 'backup' ? values.to : values.from;
  if (typeof file !== 'string' || file === '') {
    output.err(`Usage:\n${BACKUP_USAGE}\n`);
    return 2;
  }
  try {
    // The file is checked whole before the database is even opened (opening creates a SQLite file).
    const verified = command === 'restore' ? await verifyBackup(file) : undefined;
    return await withDatabase(config.databaseUrl, async (db) => {
      if (verified === undefined) {
        // The copy carries the schema it was made with: bring an old database up to date first.
        await migrateToLatest(db);
        const header = await writeBackup(db, file);
        output.out(`Backed up ${summary(header.tables)} to ${file}\n`);
      } else {
        const header = await restoreBackup(db, file, verified);
        output.out(`Restored ${summary(header.tables)} from ${file} (made ${header.createdAt})\n`);
      }
      return 0;
    });
  } catch (error) {
    if (!(error instanceof BackupFileError)) throw error;
    output.err(`flagstaff ${command}: ${error.message}\n`);
    return 1;
  }
}

async function withDatabase<T>(url: string, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const { db } = openDatabase(url);
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

const summary = (tables: readonly { rows: number }[]) =>
  `${tables.reduce((sum, table) => sum + table.rows, 0)} rows in ${tables.length} tables`;
