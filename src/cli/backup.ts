import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import { BackupFileError, UNSIGNED_BACKUP_VERSION } from '../storage/backup/backup-file.ts';
import { verifyBackup } from '../storage/backup/read-backup.ts';
import { restoreBackup } from '../storage/backup/restore-backup.ts';
import { writeBackup } from '../storage/backup/write-backup.ts';
import { migrateToLatest, openDatabase } from '../storage/open-database.ts';
import { existingServerSecret, loadServerSecret } from '../storage/server-key-file.ts';
import type { Database } from '../storage/sql/database.ts';
import { type CliOutput, processOutput } from './operator.ts';

export const BACKUP_USAGE = `  backup     flagstaff backup --to FILE
             write a consistent copy of the whole database (FLAGSTAFF_DATABASE_URL) to FILE,
             signed with the server key (FLAGSTAFF_SECRET_KEY or its key file; decision 1880)
  restore    flagstaff restore --from FILE [--allow-unsigned]
             load a backup into an empty database of either kind (docs/decisions/1733); a
             backup signed with another server key is refused; --allow-unsigned accepts a
             backup written before backups were signed`;

const UNSIGNED_NOTE =
  'Note: this backup is unsigned (written before Flagstaff signed its backups): its checksum shows it is whole, not that nobody changed it. Take a new backup now; it will be signed.\n';

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
    options: { to: { type: 'string' }, from: { type: 'string' }, 'allow-unsigned': { type: 'boolean' } },
  });
  const file = command === 'backup' ? values.to : values.from;
  if (typeof file !== 'string' || file === '') {
    output.err(`Usage:\n${BACKUP_USAGE}\n`);
    return 2;
  }
  try {
    return command === 'backup'
      ? await backup(file, config, output)
      : await restore(file, config, values['allow-unsigned'] === true, output);
  } catch (error) {
    if (!(error instanceof BackupFileError)) throw error;
    output.err(`flagstaff ${command}: ${error.message}\n`);
    return 1;
  }
}

async function backup(file: string, config: Config, output: CliOutput): Promise<number> {
  const { secret } = await loadServerSecret(config.secretKey, config.databaseUrl);
  return withDatabase(config.databaseUrl, async (db) => {
    // The copy carries the schema it was made with: bring an old database up to date first.
    await migrateToLatest(db);
    const header = await writeBackup(db, file, secret);
    output.out(`Backed up ${summary(header.tables)} to ${file}\n`);
    return 0;
  });
}

async function restore(file: string, config: Config, allowUnsigned: boolean, output: CliOutput) {
  // Never creates a key file: a key made now could not have signed the backup.
  const key = await existingServerSecret(config.secretKey, config.databaseUrl);
  // The file is checked whole before the database is even opened (opening creates a SQLite file).
  const verified = await verifyBackup(file, { secret: key?.secret, allowUnsigned });
  return withDatabase(config.databaseUrl, async (db) => {
    const header = await restoreBackup(db, file, verified);
    output.out(`Restored ${summary(header.tables)} from ${file} (made ${header.createdAt})\n`);
    if (header.version === UNSIGNED_BACKUP_VERSION) output.out(UNSIGNED_NOTE);
    return 0;
  });
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
