import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFlagsAsCode } from '../../src/cli/flags-as-code/command.ts';
import { ADMIN_KEY, type TestServer } from '../support/server.ts';

export interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** `flagstaff <command> DIR …` in this process, against `server`, as `key` (default the admin's). */
export async function cli(
  server: TestServer,
  command: 'pull' | 'plan' | 'apply',
  dir: string,
  args: readonly string[] = [],
  key = ADMIN_KEY,
): Promise<Run> {
  let out = '';
  let err = '';
  const code = await runFlagsAsCode(
    command,
    [dir, ...args],
    {
      out: (text) => {
        out += text;
      },
      err: (text) => {
        err += text;
      },
    },
    { FLAGSTAFF_URL: server.url, FLAGSTAFF_KEY: key },
  );
  return { code, out, err };
}

/** A temporary folder, removed by the returned function. */
export async function tempFolder(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'flagstaff-fac-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Replaces `from` by `to` in a file (exactly once, so a test edits what it means to). */
export async function edit(path: string, from: string, to: string): Promise<void> {
  const text = await readFile(path, 'utf8');
  if (text.split(from).length !== 2) throw new Error(`"${from}" is not in ${path} exactly once:\n${text}`);
  await writeFile(path, text.replace(from, to));
}

/** Creates a key of `role` on project `project`; its secret. */
export async function keyOf(server: TestServer, project: string, role: string): Promise<string> {
  const created = await server.call('POST', `/v1/projects/${project}/api-keys`, {
    body: { name: `${role} key`, role },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body.secret;
}
