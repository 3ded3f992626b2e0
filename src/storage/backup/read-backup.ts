import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ServerSecret } from '../../domain/server-secret.ts';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  BackupFileError,
  type BackupHeader,
  type BackupTrailer,
  LineDigest,
  UNSIGNED_BACKUP_VERSION,
} from './backup-file.ts';

/** What a restore trusts (docs/decisions/1880). */
export interface BackupTrust {
  /** This server's key: a signed file must be signed with it. Without one, no signed file verifies. */
  readonly secret?: ServerSecret;
  /** The operator accepts a version 1 file, which only a checksum anyone can recompute protects. */
  readonly allowUnsigned?: boolean;
}

/** The lines of a file, one at a time, without holding the file in memory. */
async function* lines(path: string): AsyncGenerator<string> {
  const input = createReadStream(path, { encoding: 'utf8' });
  try {
    yield* createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  } finally {
    input.destroy();
  }
}

function parse(line: string, what: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new BackupFileError(`the backup file is damaged: ${what} is not valid JSON`);
  }
}

function isHeader(value: unknown): value is BackupHeader {
  const header = value as BackupHeader;
  return (
    typeof value === 'object' &&
    value !== null &&
    header.format === BACKUP_FORMAT &&
    Array.isArray(header.migrations) &&
    Array.isArray(header.tables) &&
    header.tables.every(
      (table) =>
        typeof table?.name === 'string' &&
        Array.isArray(table.columns) &&
        Number.isInteger(table.rows) &&
        table.rows >= 0,
    )
  );
}

/**
 * The digest a file's header calls for, once the header is one this server may trust: a signed
 * file must name this server's key; an unsigned one needs the operator's consent.
 */
function digestFor(header: BackupHeader, trust: BackupTrust): LineDigest {
  if (header.version === UNSIGNED_BACKUP_VERSION) {
    if (trust.allowUnsigned) return LineDigest.unsigned();
    throw new BackupFileError(
      'this backup is unsigned (written before Flagstaff signed its backups), so nothing shows that nobody changed it; if the file was kept where no one else could write, restore it with --allow-unsigned, then take a new backup',
    );
  }
  if (header.version !== BACKUP_VERSION) {
    throw new BackupFileError(
      `backup format version ${header.version} is not one this Flagstaff reads (${UNSIGNED_BACKUP_VERSION}, ${BACKUP_VERSION})`,
    );
  }
  if (trust.secret === undefined) {
    throw new BackupFileError(
      `the backup is signed with a server key (fingerprint ${header.key}) and this server has none: set FLAGSTAFF_SECRET_KEY, or copy the key file of the server that made it beside this database`,
    );
  }
  if (header.key !== trust.secret.fingerprint) {
    throw new BackupFileError(
      `the backup was signed with another server key (fingerprint ${header.key}; this server's is ${trust.secret.fingerprint}): restore it with the key of the server that made it (FLAGSTAFF_SECRET_KEY or its key file)`,
    );
  }
  return LineDigest.signed(trust.secret);
}

/** The last line's MAC or checksum, as the file's version writes it; undefined for a row. */
function trailerValue(value: unknown, header: BackupHeader): string | undefined {
  const trailer = value as BackupTrailer;
  const mac = header.version === UNSIGNED_BACKUP_VERSION ? trailer?.sha256 : trailer?.hmac;
  return typeof mac === 'string' ? mac : undefined;
}

/**
 * Reads the whole file once and checks it: the header, every row's shape and count, and the
 * signature (HMAC-SHA-256 under this server's key; SHA-256 for an unsigned file the operator
 * accepts) in the last line over everything before it. Throws BackupFileError naming what is
 * wrong (not a backup, truncated, altered, another key, unsigned); resolves with the header
 * when the file is whole and its own.
 */
export async function verifyBackup(path: string, trust: BackupTrust = {}): Promise<BackupHeader> {
  let digest: LineDigest | undefined;
  let header: BackupHeader | undefined;
  let trailer: string | undefined;
  let tableIndex = 0;
  let rowsLeft = 0;
  let lineNumber = 0;
  for await (const line of lines(path)) {
    lineNumber++;
    if (trailer !== undefined) throw new BackupFileError(`the backup file has lines after its checksum`);
    if (header === undefined || digest === undefined) {
      const value = parse(line, 'its first line');
      if (!isHeader(value))
        throw new BackupFileError('this is not a Flagstaff backup (its first line is no backup header)');
      digest = digestFor(value, trust);
      header = value;
      rowsLeft = header.tables[0]?.rows ?? 0;
      digest.add(line);
      continue;
    }
    while (rowsLeft === 0 && tableIndex < header.tables.length - 1)
      rowsLeft = header.tables[++tableIndex]?.rows ?? 0;
    const value = parse(line, `line ${lineNumber}`);
    if (rowsLeft === 0) {
      trailer = trailerValue(value, header);
      if (trailer === undefined) {
        throw new BackupFileError(
          `the backup file has more rows than its header counts (line ${lineNumber})`,
        );
      }
      continue;
    }
    const table = header.tables[tableIndex];
    if (!Array.isArray(value) || value.length !== table?.columns.length) {
      throw new BackupFileError(
        `the backup file is damaged: line ${lineNumber} is not a row of table ${table?.name}`,
      );
    }
    rowsLeft--;
    digest.add(line);
  }
  if (header === undefined || digest === undefined) throw new BackupFileError('the backup file is empty');
  if (trailer === undefined) {
    throw new BackupFileError('the backup file is incomplete (truncated?): it ends before its checksum line');
  }
  if (!ServerSecret.sameMac(trailer, digest.hex())) {
    throw new BackupFileError(
      header.version === UNSIGNED_BACKUP_VERSION
        ? 'the backup file was altered or damaged: its checksum does not match its contents'
        : 'the backup file was altered or damaged: its signature does not match its contents',
    );
  }
  return header;
}

/** Every row of a verified backup, table by table in the header's order. */
export async function* backupRows(
  path: string,
  header: BackupHeader,
): AsyncGenerator<{ table: string; values: readonly unknown[] }> {
  let tableIndex = 0;
  let rowsLeft = header.tables[0]?.rows ?? 0;
  let first = true;
  for await (const line of lines(path)) {
    if (first) {
      first = false;
      continue;
    }
    while (rowsLeft === 0 && tableIndex < header.tables.length - 1)
      rowsLeft = header.tables[++tableIndex]?.rows ?? 0;
    if (rowsLeft === 0) return; // the checksum line
    rowsLeft--;
    yield { table: header.tables[tableIndex]?.name as string, values: JSON.parse(line) };
  }
}
