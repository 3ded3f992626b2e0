import { open, rename, rm } from 'node:fs/promises';
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { ServerSecret } from '../../domain/server-secret.ts';
import type { Database } from '../sql/database.ts';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  type BackupHeader,
  type BackupTable,
  encodeValue,
  LineDigest,
} from './backup-file.ts';
import { appliedMigrations, schemaTables } from './schema-tables.ts';

/** Bytes gathered before each write to the file. */
const CHUNK_BYTES = 1 << 20;

/**
 * Writes every row of every table to `path`, all read in one transaction so the copy is
 * consistent while nodes keep writing (a snapshot on PostgreSQL, a read transaction on
 * SQLite). The file appears complete or not at all (written aside, then renamed). It is signed
 * with the server secret (decision 1880), so that a restore refuses any change made to it.
 */
export async function writeBackup(
  db: Kysely<Database>,
  path: string,
  secret: ServerSecret,
  clock: () => Date = () => new Date(),
): Promise<BackupHeader> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const partial = `${path}.partial`;
  const file = await open(partial, 'w', 0o600);
  try {
    // PostgreSQL: one snapshot for every table. SQLite: a read transaction sees one state of the file.
    const transaction = postgres ? db.transaction().setIsolationLevel('repeatable read') : db.transaction();
    const header = await transaction.execute(async (tx) => {
      const tables = await schemaTables(tx);
      const contents: { table: BackupTable; rows: readonly Record<string, unknown>[] }[] = [];
      for (const table of tables) {
        const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(
          tx,
        );
        contents.push({ table: { ...table, rows: rows.length }, rows });
      }
      const header: BackupHeader = {
        format: BACKUP_FORMAT,
        version: BACKUP_VERSION,
        createdAt: clock().toISOString(),
        dialect: postgres ? 'postgres' : 'sqlite',
        migrations: await appliedMigrations(tx),
        tables: contents.map(({ table }) => table),
        key: secret.fingerprint,
      };
      const digest = LineDigest.signed(secret);
      let chunk = '';
      const line = async (text: string) => {
        digest.add(text);
        chunk += `${text}\n`;
        if (chunk.length >= CHUNK_BYTES) {
          await file.write(chunk);
          chunk = '';
        }
      };
      await line(JSON.stringify(header));
      for (const { table, rows } of contents) {
        for (const row of rows) await line(JSON.stringify(table.columns.map((c) => encodeValue(row[c]))));
      }
      chunk += `${JSON.stringify({ hmac: digest.hex() })}\n`;
      await file.write(chunk);
      return header;
    });
    await file.sync();
    await file.close();
    await rename(partial, path);
    return header;
  } catch (error) {
    await file.close().catch(() => {});
    await rm(partial, { force: true });
    throw error;
  }
}
