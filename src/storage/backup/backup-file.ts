import { createHash, type Hash, type Hmac } from 'node:crypto';
import type { ServerSecret } from '../../domain/server-secret.ts';

/**
 * The backup file (docs/decisions/1733-backup-and-restore.md): JSON lines. The first is the
 * header (format, migrations, every table with its columns and row count), then one line per
 * row (an array of values, tables in the header's order), and last the HMAC-SHA-256 of every
 * byte before it under the server secret (version 2, decision 1880; version 1 files end with a
 * plain SHA-256 instead, and restore only when the operator accepts them unsigned). Values are
 * what both databases store: text, numbers, null; bytes as {"$base64"}.
 */
export const BACKUP_FORMAT = 'flagstaff-backup';
export const BACKUP_VERSION = 2;
/** Files written before backups were signed: a checksum anyone can recompute. */
export const UNSIGNED_BACKUP_VERSION = 1;

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
  /** Version 2: the fingerprint of the server key that signed it (`ServerSecret.fingerprint`). */
  readonly key?: string;
}

/** The last line: `hmac` (version 2) or `sha256` (version 1) over every line before it. */
export interface BackupTrailer {
  readonly hmac?: string;
  readonly sha256?: string;
}

/** A backup the restore refuses, before writing anything; the message says why. */
export class BackupFileError extends Error {
  override name = 'BackupFileError';
}

/** A MAC (version 2) or checksum (version 1) over the lines written so far (each with its newline). */
export class LineDigest {
  readonly #hash: Hash | Hmac;

  constructor(hash: Hash | Hmac) {
    this.#hash = hash;
  }

  /** The signature of a version 2 file. */
  static signed(secret: ServerSecret): LineDigest {
    return new LineDigest(secret.mac('backup'));
  }

  /** The checksum of a version 1 file. */
  static unsigned(): LineDigest {
    return new LineDigest(createHash('sha256'));
  }

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
