import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeReference } from '../../domain/code-reference.ts';
import { MAX_CONTEXT_LINE } from '../../domain/schemas/code-reference-schemas.ts';

/** Files larger than this are not read: generated data, not code a person maintains. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** A NUL among a file's first bytes marks it binary, as git decides. */
const BINARY_PROBE = 8000;
/** Lines shown before and after a match. */
const CONTEXT_LINES = 2;

/**
 * Runs of key characters: a flag key is found only as a whole run, so `new-checkout` is not found
 * in `new-checkout-v2` or `app.new-checkout`. A run's trailing dots (the end of a sentence in a
 * comment) are not part of it.
 */
const TOKEN = /[A-Za-z0-9._-]+/g;

export interface ScanStats {
  readonly files: number;
  readonly bytes: number;
  readonly skippedLarge: number;
  readonly skippedBinary: number;
}

export interface ScanResult {
  readonly references: CodeReference[];
  readonly stats: ScanStats;
}

/** The files git tracks under `dir`, relative to it. */
export function trackedFiles(dir: string): string[] {
  const listed = execFileSync('git', ['-C', dir, 'ls-files', '-z', '--cached'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return listed.split('\0').filter((path) => path !== '');
}

/** A line as context: whole when short, else the part around `column` (a minified bundle's line is one). */
function excerpt(line: string, column: number | undefined): string {
  if (line.length <= MAX_CONTEXT_LINE) return line;
  const around = column ?? 0;
  const start = Math.max(0, Math.min(around - MAX_CONTEXT_LINE / 2, line.length - MAX_CONTEXT_LINE));
  return line.slice(start, start + MAX_CONTEXT_LINE);
}

/** Every whole-token occurrence of a key in `text`, each once per line and key. */
export function referencesIn(path: string, text: string, keys: ReadonlySet<string>): CodeReference[] {
  const found: CodeReference[] = [];
  let lines: string[] | undefined;
  let lineStarts: number[] | undefined;
  const seen = new Set<string>();
  for (const match of text.matchAll(TOKEN)) {
    let token = match[0];
    if (token.endsWith('.')) token = token.replace(/\.+$/, '');
    if (!keys.has(token)) continue;
    // Lines are split only in files that name a flag: most files name none.
    lines ??= linesOf(text);
    lineStarts ??= startsOf(lines, text);
    const index = lineIndexOf(lineStarts, match.index);
    const id = `${index}\u0000${token}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const column = match.index - (lineStarts[index] as number);
    const context = lines
      .slice(Math.max(0, index - CONTEXT_LINES), index + CONTEXT_LINES + 1)
      .map((line, i) => excerpt(line, i === Math.min(index, CONTEXT_LINES) ? column : undefined));
    found.push({ flag: token, path, line: index + 1, context });
  }
  return found;
}

/** The lines of `text`; a final line break ends the last line rather than starting an empty one. */
function linesOf(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/** Where each line starts in `text` (its line breaks `\n` or `\r\n`). */
function startsOf(lines: readonly string[], text: string): number[] {
  const starts: number[] = [];
  let at = 0;
  for (const line of lines) {
    starts.push(at);
    at += line.length;
    at += text[at] === '\r' ? 2 : 1;
  }
  return starts;
}

function lineIndexOf(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] as number) <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Reads a tracked file unless it is too large, binary, or gone from the work tree. */
function readCode(file: string, size: number): Buffer | 'binary' {
  const buffer = Buffer.allocUnsafe(size);
  const fd = openSync(file, 'r');
  try {
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    const bytes = buffer.subarray(0, read);
    return bytes.subarray(0, BINARY_PROBE).includes(0) ? 'binary' : bytes;
  } finally {
    closeSync(fd);
  }
}

/**
 * Scans the files git tracks under `dir` (or the `paths` given, relative to it) for `keys`, in
 * path and line order.
 */
export function scanRepository(
  dir: string,
  keys: ReadonlySet<string>,
  paths: readonly string[] = trackedFiles(dir),
  maxBytes = MAX_FILE_BYTES,
): ScanResult {
  const references: CodeReference[] = [];
  let files = 0;
  let bytes = 0;
  let skippedLarge = 0;
  let skippedBinary = 0;
  for (const path of [...paths].sort()) {
    const file = join(dir, path);
    let size: number;
    try {
      const stat = statSync(file);
      if (!stat.isFile()) continue;
      size = stat.size;
    } catch {
      continue; // deleted in the work tree, not yet in the index
    }
    if (size > maxBytes) {
      skippedLarge++;
      continue;
    }
    const content = readCode(file, size);
    if (content === 'binary') {
      skippedBinary++;
      continue;
    }
    files++;
    bytes += content.length;
    references.push(...referencesIn(path, content.toString('utf8'), keys));
  }
  return { references, stats: { files, bytes, skippedLarge, skippedBinary } };
}
