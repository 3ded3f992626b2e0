import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackupCommand } from '../../src/cli/backup.ts';
import { loadConfig } from '../../src/config.ts';
import { composeNode } from '../../src/main.ts';
import { hashSecret } from '../../src/services/core/secrets.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { openStore } from '../../src/storage/open-store.ts';

// Issue 34, item 7: backups are signed with the server key (HMAC-SHA-256, docs/decisions/1880),
// so a restore refuses a file someone changed, even with its checksum recomputed; backups
// written before signing still restore, when the operator says so, with a note that they are unsigned.

const SERVER_KEY = 'backup-signing-test-server-key-0123456789';
const ADMIN_KEY = 'fsk_backup-signing-admin-key-0123456789abcdef';
const INJECTED_KEY = 'fsk_injected-by-someone-who-edited-the-backup-01';

let dir: string;
let backupFile: string;
let counter = 0;

/** Runs the command in this process, as `flagstaff <command>` would with these variables. */
async function cli(command: 'backup' | 'restore', argv: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const code = await runBackupCommand(command, argv, loadConfig(env), {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
  });
  return { code, out, err };
}

const freshTarget = () => `sqlite:${join(dir, `target-${++counter}`, 'flagstaff.db')}`;

interface Parsed {
  header: Record<string, unknown> & { tables: { name: string; columns: string[]; rows: number }[] };
  rows: string[];
}

function parse(text: string): Parsed {
  const lines = text.trimEnd().split('\n');
  return { header: JSON.parse(lines[0] as string), rows: lines.slice(1, -1) };
}

/** A backup file of `parsed`, ended the way version 1 ended them: a SHA-256 anyone can recompute. */
function withChecksum(parsed: Parsed, trailerKey: 'sha256' | 'hmac'): string {
  const body = [JSON.stringify(parsed.header), ...parsed.rows].map((line) => `${line}\n`).join('');
  return `${body}${JSON.stringify({ [trailerKey]: createHash('sha256').update(body).digest('hex') })}\n`;
}

/** What the issue's attacker did: a second admin key of their own, added to the api_keys rows. */
function withInjectedAdminKey(parsed: Parsed): Parsed {
  const tables = parsed.header.tables;
  const index = tables.findIndex((t) => t.name === 'api_keys');
  const table = tables[index] as (typeof tables)[number];
  const start = tables.slice(0, index).reduce((sum, t) => sum + t.rows, 0);
  const original = JSON.parse(parsed.rows[start] as string) as unknown[];
  const row = table.columns.map((column, i) =>
    column === 'id'
      ? 'key_injected'
      : column === 'secret_hash'
        ? hashSecret(INJECTED_KEY)
        : column === 'prefix'
          ? 'fsk_'
          : original[i],
  );
  const rows = [...parsed.rows];
  rows.splice(start, 0, JSON.stringify(row));
  const header = {
    ...parsed.header,
    tables: tables.map((t, i) => (i === index ? { ...t, rows: t.rows + 1 } : t)),
  };
  return { header, rows };
}

/** The same file as Flagstaff wrote it before backups were signed: version 1, no key, a SHA-256. */
function asVersion1(parsed: Parsed): Parsed {
  const { key: _, ...header } = parsed.header;
  return { header: { ...header, version: 1 } as Parsed['header'], rows: parsed.rows };
}

async function keysOf(url: string): Promise<{ admin: boolean; injected: boolean }> {
  const store = await openStore(url);
  try {
    const { services } = composeNode(store);
    return {
      admin: (await services.apiKeys.authenticate(ADMIN_KEY)) !== undefined,
      injected: (await services.apiKeys.authenticate(INJECTED_KEY)) !== undefined,
    };
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagstaff-backup-signing-'));
  const source = `sqlite:${join(dir, 'source', 'flagstaff.db')}`;
  const store = await openStore(source);
  await bootstrap(store, ADMIN_KEY);
  await store.close();
  backupFile = join(dir, 'signed.backup');
  const made = await cli('backup', ['--to', backupFile], {
    FLAGSTAFF_DATABASE_URL: source,
    FLAGSTAFF_SECRET_KEY: SERVER_KEY,
  });
  expect(made.code, made.err).toBe(0);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('flagstaff restore of a signed backup', () => {
  const env = (url: string) => ({ FLAGSTAFF_DATABASE_URL: url, FLAGSTAFF_SECRET_KEY: SERVER_KEY });

  it('restores the file it wrote, and its keys work', async () => {
    const target = freshTarget();
    const run = await cli('restore', ['--from', backupFile], env(target));
    expect(run.code, run.err).toBe(0);
    expect(run.out).not.toMatch(/unsigned/);
    expect(await keysOf(target)).toEqual({ admin: true, injected: false });
  });

  it('refuses an edited backup whose SHA-256 was recomputed, and writes nothing', async () => {
    const edited = withInjectedAdminKey(parse(readFileSync(backupFile, 'utf8')));
    const file = join(dir, 'edited.backup');
    for (const [text, message] of [
      [withChecksum(edited, 'hmac'), /altered or damaged: its signature does not match/],
      [withChecksum(edited, 'sha256'), /more rows than its header counts|altered/],
      [withChecksum(asVersion1(edited), 'sha256'), /unsigned .*--allow-unsigned/],
    ] as const) {
      writeFileSync(file, text);
      const target = freshTarget();
      const run = await cli('restore', ['--from', file], env(target));
      expect(run.code).toBe(1);
      expect(run.err).toMatch(message);
      expect(existsSync(target.slice('sqlite:'.length))).toBe(false);
    }
  });

  it('refuses a backup signed with another server key, or on a server that has none', async () => {
    const other = await cli('restore', ['--from', backupFile], {
      FLAGSTAFF_DATABASE_URL: freshTarget(),
      FLAGSTAFF_SECRET_KEY: 'another-server-key-0123456789abcdefghij',
    });
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/signed with another server key/);
    const none = await cli('restore', ['--from', backupFile], { FLAGSTAFF_DATABASE_URL: freshTarget() });
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/this server has none: set FLAGSTAFF_SECRET_KEY/);
  });
});

describe('flagstaff restore of a backup written before backups were signed', () => {
  let file: string;

  beforeAll(() => {
    file = join(dir, 'version-1.backup');
    writeFileSync(file, withChecksum(asVersion1(parse(readFileSync(backupFile, 'utf8'))), 'sha256'));
  });

  it('asks for --allow-unsigned, then restores it with a note that it is unsigned', async () => {
    const target = freshTarget();
    const asked = await cli('restore', ['--from', file], { FLAGSTAFF_DATABASE_URL: target });
    expect(asked.code).toBe(1);
    expect(asked.err).toMatch(/this backup is unsigned/);
    const run = await cli('restore', ['--from', file, '--allow-unsigned'], {
      FLAGSTAFF_DATABASE_URL: target,
    });
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(/^Restored \d+ rows/);
    expect(run.out).toMatch(/Note: this backup is unsigned .* Take a new backup now/);
    expect(await keysOf(target)).toEqual({ admin: true, injected: false });
  });

  it('still refuses a damaged one: its checksum is checked', async () => {
    const damaged = join(dir, 'version-1-damaged.backup');
    writeFileSync(damaged, readFileSync(file, 'utf8').replace('"default"', '"defau1t"'));
    const run = await cli('restore', ['--from', damaged, '--allow-unsigned'], {
      FLAGSTAFF_DATABASE_URL: freshTarget(),
    });
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/its checksum does not match/);
  });
});
