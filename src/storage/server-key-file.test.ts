import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../config.ts';
import { ServerSecret } from '../domain/server-secret.ts';
import { existingServerSecret, KEY_FILE_NAME, keyFilePath, loadServerSecret } from './server-key-file.ts';

describe('the server key file', () => {
  let dir: string;
  let url: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'flagstaff-key-file-'));
    url = `sqlite:${join(dir, 'data', 'flagstaff.db')}`;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is made once beside the database, mode 0600, even by processes starting at once', async () => {
    const loaded = await Promise.all(Array.from({ length: 8 }, () => loadServerSecret(undefined, url)));
    const file = join(dir, 'data', KEY_FILE_NAME);
    expect(new Set(loaded.map((l) => l.secret.fingerprint)).size).toBe(1);
    expect(loaded.filter((l) => l.created)).toHaveLength(1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await loadServerSecret(undefined, url)).secret.fingerprint).toBe(loaded[0]?.secret.fingerprint);
  });

  it('is never made by a restore, which finds none', async () => {
    expect(await existingServerSecret(undefined, url)).toBeUndefined();
    expect(existsSync(join(dir, 'data', KEY_FILE_NAME))).toBe(false);
  });

  it('gives way to FLAGSTAFF_SECRET_KEY, which touches no file', async () => {
    const loaded = await loadServerSecret('v'.repeat(40), url);
    expect(loaded.origin).toBe('variable');
    expect(loaded.secret.fingerprint).toBe(ServerSecret.fromText('v'.repeat(40)).fingerprint);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('refuses a file too short to be a key, naming it and the variable', async () => {
    const file = join(dir, KEY_FILE_NAME);
    writeFileSync(file, 'short\n', { mode: 0o600 });
    const refused = loadServerSecret(undefined, `sqlite:${join(dir, 'flagstaff.db')}`);
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(/flagstaff-secret\.key .*FLAGSTAFF_SECRET_KEY/);
  });

  it('warns of a file others can read; PostgreSQL keeps it in ./data, memory in none', async () => {
    const file = join(dir, KEY_FILE_NAME);
    writeFileSync(file, `${ServerSecret.generateText()}\n`, { mode: 0o644 });
    const loaded = await loadServerSecret(undefined, `sqlite:${join(dir, 'flagstaff.db')}`);
    expect(loaded.warning).toMatch(/can be read by other users: chmod 600/);
    expect(keyFilePath('postgres://db/flags')).toMatch(/data\/flagstaff-secret\.key$/);
    expect(keyFilePath('sqlite::memory:')).toBeUndefined();
  });
});
