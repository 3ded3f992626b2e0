import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';
import type { CodeReference } from '../../domain/code-reference.ts';
import { type ApiClient, ApiError } from '../flags-as-code/api-client.ts';
import type { CliOutput } from '../operator.ts';
import { folderCommandOf } from '../server-options.ts';
import { scanRepository } from './scan.ts';

export const REFS_USAGE = `  refs       flagstaff refs DIR --project P [--repository NAME] [--branch B] [--url-template T]
             [--fail-on-archived]: find the project's flag keys in the files git tracks under DIR
             and report them (replacing that repository's references for the branch); prints
             what it found. --fail-on-archived exits 1 when code reads an archived or deleted flag.
             Repository and branch default to DIR's; the URL template links a line, e.g.
             https://github.com/acme/shop/blob/{branch}/{path}#L{line}`;

interface Options {
  readonly dir: string;
  readonly project: string;
  readonly repository: string;
  readonly branch: string;
  readonly urlTemplate: string | null;
  readonly failOnArchived: boolean;
  readonly client: ApiClient;
}

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();

function optionsOf(argv: readonly string[], env: NodeJS.ProcessEnv, output: CliOutput): Options | undefined {
  const parsed = folderCommandOf(argv, env, output, {
    name: 'flagstaff refs',
    usage: REFS_USAGE,
    options: {
      repository: { type: 'string' },
      branch: { type: 'string' },
      'url-template': { type: 'string' },
      'fail-on-archived': { type: 'boolean' },
    },
    needsProject: true,
  });
  if (parsed === undefined) return undefined;
  const { dir, client, values } = parsed;
  const project = values.project as string;
  return {
    dir,
    project,
    repository:
      (values.repository as string | undefined) ?? basename(git(dir, 'rev-parse', '--show-toplevel')),
    branch: (values.branch as string | undefined) ?? (git(dir, 'branch', '--show-current') || 'HEAD'),
    urlTemplate: (values['url-template'] as string | undefined) ?? null,
    failOnArchived: values['fail-on-archived'] === true,
    client,
  };
}

/**
 * The keys to look for: every flag of the project, archived ones too, and the keys of flags
 * that are gone but which code referred to when last reported, so deleted flags are found.
 */
async function keysToFind(client: ApiClient, project: string) {
  const p = encodeURIComponent(project);
  const flags = await client.list<{ key: string; archived: boolean }>(`/v1/projects/${p}/flags`);
  const stored = await client.request<{ flag: string }[]>('GET', `/v1/projects/${p}/code-references`);
  const live = new Set(flags.map((flag) => flag.key));
  const archived = new Set(flags.filter((flag) => flag.archived).map((flag) => flag.key));
  const deleted = new Set(stored.body.map((reference) => reference.flag).filter((key) => !live.has(key)));
  return { keys: new Set([...live, ...deleted]), archived, deleted };
}

function printFound(references: readonly CodeReference[], output: CliOutput): void {
  const byFlag = Map.groupBy(references, (reference) => reference.flag);
  for (const flag of [...byFlag.keys()].sort()) {
    output.out(`${flag}\n`);
    for (const reference of byFlag.get(flag) ?? []) output.out(`  ${reference.path}:${reference.line}\n`);
  }
}

/** `flagstaff refs`: 0 reported, 1 an archived or deleted flag read (with --fail-on-archived) or an error, 2 usage. */
export async function runRefsCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  output: CliOutput,
): Promise<number> {
  const options = optionsOf(argv, env, output);
  if (options === undefined) return 2;
  const { client, project, repository, branch } = options;
  try {
    const { keys, archived, deleted } = await keysToFind(client, project);
    const { references, stats } = scanRepository(options.dir, keys);
    printFound(references, output);
    const outcome = await client.request<{ changed: boolean; added: number; removed: number }>(
      'PUT',
      `/v1/projects/${encodeURIComponent(project)}/code-references/${encodeURIComponent(repository)}`,
      { body: { branch, urlTemplate: options.urlTemplate, references } },
    );
    const flags = new Set(references.map((reference) => reference.flag));
    output.out(
      `${references.length} references to ${flags.size} flags in ${stats.files} files (${stats.skippedLarge} too large, ${stats.skippedBinary} binary skipped); ` +
        (outcome.body.changed
          ? `reported ${repository}@${branch}: ${outcome.body.added} added, ${outcome.body.removed} removed.\n`
          : `${repository}@${branch} unchanged.\n`),
    );
    const stale = [...flags].filter((flag) => archived.has(flag) || deleted.has(flag)).sort();
    for (const flag of stale) {
      output.err(
        `flagstaff refs: code still reads the ${deleted.has(flag) ? 'deleted' : 'archived'} flag "${flag}".\n`,
      );
    }
    return options.failOnArchived && stale.length > 0 ? 1 : 0;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    output.err(`flagstaff refs: ${error.message}\n`);
    return 1;
  }
}
