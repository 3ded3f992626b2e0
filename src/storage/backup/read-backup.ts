import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  BackupFileError,
  type BackupHeader,
  type BackupTrailer,
  LineDigest,
} from './backup-file.ts';

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
 * Reads the whole file once and checks it: the header, every row's shape and count, and the
 * SHA-256 in the last line over everything before it. Throws BackupFileError naming what is
 * wrong (not a backup, truncated, altered); resolves with the header when the file is whole.
 */
export async function verifyBackup(path: string): Promise<BackupHeader> {
  const digest = new LineDigest();
  let header: BackupHeader | undefined;
  let trailer: BackupTrailer | undefined;
  let tableIndex = 0;
  let rowsLeft = 0;
  let lineNumber = 0;
  for await (const line of lines(path)) {
    lineNumber++;
    if (trailer !== undefined) throw new BackupFileError(`the backup file has lines after its checksum`);
    if (header === undefined) {
      const value = parse(line, 'its first line');
      if (!isHeader(value))
        throw new BackupFileError('this is not a Flagstaff backup (its first line is no backup header)');
      if (value.version !== BACKUP_VERSION) {
        throw new BackupFileError(
          `backup format version ${value.version} is not one this Flagstaff reads (${BACKUP_VERSION})`,
        );
      }
      header = value;
      rowsLeft = header.tables[0]?.rows ?? 0;
      digest.add(line);
      continue;
    }
    while (rowsLeft === 0 && tableIndex < header.tables.length - 1)
      rowsLeft = header.tables[++tableIndex]?.rows ?? 0;
    const value = parse(line, `line ${lineNumber}`);
    if (rowsLeft === 0) {
      if (typeof (value as BackupTrailer)?.sha256 !== 'string') {
        throw new BackupFileError(
          `the backup file has more rows than its header counts (line ${lineNumber})`,
        );
      }
      trailer = value as BackupTrailer;
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
  if (header === undefined) throw new BackupFileError('the backup file is empty');
  if (trailer === undefined) {
    throw new BackupFileError('the backup file is incomplete (truncated?): it ends before its checksum line');
  }
  if (trailer.sha256 !== digest.hex()) {
    throw new BackupFileError(
      'the backup file was altered or damaged: its checksum does not match its contents',
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
