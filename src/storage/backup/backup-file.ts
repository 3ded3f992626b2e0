import { createHash } from 'node:crypto';

/**
 * The backup file (docs/decisions/1733-backup-and-restore.md): JSON lines. The first is the
 * header (format, migrations, every table with its columns and row count), then one line per
 * row (an array of values, tables in the header's order), and last the SHA-256 of every byte
 * before it. Values are what both databases store: text, numbers, null; bytes as {"$base64"}.
 */
export const BACKUP_FORMAT = 'flagstaff-backup';
export const BACKUP_VERSION = 1;

export interface BackupTable {
  readonly name: string;
  readonly columns: readonly string[];
  readonly rows: number;
}

export interface BackupHeader {
  readonly format: typeof BACKUP_FORMAT;
  readonly version: number;
  readonly createdAt: string;
  /** The source database's kind, for the record. */
  readonly dialect: 'sqlite' | 'postgres';
  /** The migrations the source had applied: the schema the rows fit. */
  readonly migrations: readonly string[];
  readonly tables: readonly BackupTable[];
}

export interface BackupTrailer {
  readonly sha256: string;
}

/** A backup the restore refuses, before writing anything; the message says why. */
export class BackupFileError extends Error {
  override name = 'BackupFileError';
}

/** SHA-256 over the lines written so far (each with its newline). */
export class LineDigest {
  readonly #hash = createHash('sha256');

  add(line: string): void {
    this.#hash.update(line);
    this.#hash.update('\n');
  }

  hex(): string {
    return this.#hash.digest('hex');
  }
}

/** A database value as the file holds it. */
export function encodeValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return { $base64: Buffer.from(value).toString('base64') };
  if (typeof value === 'bigint') return value.toString();
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value;
}

/** A value of the file as the target database takes it (SQLite binds no booleans). */
export function decodeValue(value: unknown, target: 'sqlite' | 'postgres'): unknown {
  if (value !== null && typeof value === 'object' && '$base64' in value) {
    return Buffer.from(String((value as { $base64: unknown }).$base64), 'base64');
  }
  if (typeof value === 'boolean' && target === 'sqlite') return value ? 1 : 0;
  return value;
}
