import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cli, tempFolder } from './support.ts';

// pull writes only inside the folder it is given and deletes only files it could have written
// (decision 1902): it follows no symbolic link, and a file that is not a flag (or segment) file
// stays where it is.

vi.setConfig({ testTimeout: 60_000 });

const NOTES = 'title: my notes\nitems:\n  - keep me\n';
/** A flag file for a flag the server does not have: pull removes such files from its own folder. */
const GONE = 'key: gone\nenvironments:\n  production:\n    enabled: true\n';

describe('flags as code: what pull writes and deletes', () => {
  let server: TestServer;
  let dir: string;
  let outside: string;
  const removes: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    server = await startTestServer();
    await callAsAdmin(server, 'POST', '/v1/projects', { key: 'shop', name: 'Shop' });
    await callAsAdmin(server, 'POST', '/v1/projects/shop/flags', { key: 'checkout' });
    const a = await tempFolder();
    const b = await tempFolder();
    removes.push(a.remove, b.remove);
    dir = join(a.dir, 'shop');
    outside = b.dir;
    await writeFile(join(outside, 'notes.yaml'), NOTES);
    await writeFile(join(outside, 'gone.yaml'), GONE);
  });
  afterEach(async () => {
    await server.close();
    for (const remove of removes.splice(0)) await remove();
  });

  it('refuses a flags folder that is a symbolic link, and changes nothing behind it', async () => {
    await mkdir(dir);
    await symlink(outside, join(dir, 'flags'));
    const pulled = await cli(server, 'pull', dir, ['--project', 'shop']);
    expect(pulled.code).toBe(1);
    expect(pulled.err).toContain(`${join(dir, 'flags')} is a symbolic link`);
    expect((await readdir(outside)).sort()).toEqual(['gone.yaml', 'notes.yaml']);
    expect(await readFile(join(outside, 'gone.yaml'), 'utf8')).toBe(GONE);
    expect((await readdir(dir)).sort()).toEqual(['flags']);
  });

  it('refuses a flag file that is a symbolic link, and does not write through it', async () => {
    await mkdir(join(dir, 'flags'), { recursive: true });
    await symlink(join(outside, 'notes.yaml'), join(dir, 'flags/checkout.yaml'));
    const pulled = await cli(server, 'pull', dir, ['--project', 'shop']);
    expect(pulled.code).toBe(1);
    expect(pulled.err).toContain(`${join(dir, 'flags/checkout.yaml')} is a symbolic link`);
    expect(await readFile(join(outside, 'notes.yaml'), 'utf8')).toBe(NOTES);
  });

  it('deletes the file of a flag the server no longer has, and keeps a file that is not a flag file', async () => {
    await mkdir(join(dir, 'flags'), { recursive: true });
    await writeFile(join(dir, 'flags/notes.yaml'), NOTES);
    await writeFile(join(dir, 'flags/gone.yaml'), GONE);
    const pulled = await cli(server, 'pull', dir, ['--project', 'shop']);
    expect(pulled.err).toBe('');
    expect(pulled.code).toBe(0);
    expect((await readdir(join(dir, 'flags'))).sort()).toEqual(['checkout.yaml', 'notes.yaml']);
    expect(await readFile(join(dir, 'flags/notes.yaml'), 'utf8')).toBe(NOTES);
  });
});
