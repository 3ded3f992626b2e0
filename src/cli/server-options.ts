import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { ApiClient } from './flags-as-code/api-client.ts';
import type { CliOutput } from './operator.ts';

/**
 * What every command over a running server's API takes (pull, plan, apply, refs, mcp): the
 * server and the key it acts as, from --server and --key or FLAGSTAFF_URL and FLAGSTAFF_KEY.
 */
export const SERVER_OPTIONS = { server: { type: 'string' }, key: { type: 'string' } } as const;

/** `--project`/`-p` and `--environment`/`-e`, named alike by every command that takes them. */
export const PROJECT_OPTION = { project: { type: 'string', short: 'p' } } as const;
export const ENVIRONMENT_OPTION = { type: 'string', short: 'e' } as const;

/** The client of the server the options name as their key; undefined, said on stderr, when either is missing. */
export function serverClientOf(
  values: { readonly server?: unknown; readonly key?: unknown },
  env: NodeJS.ProcessEnv,
  output: CliOutput,
  command: string,
): ApiClient | undefined {
  const server = (values.server as string | undefined) ?? env.FLAGSTAFF_URL;
  const key = (values.key as string | undefined) ?? env.FLAGSTAFF_KEY;
  if (!server || !key) {
    output.err(
      `${command}: name the server and the API key: --server URL --key KEY (or FLAGSTAFF_URL, FLAGSTAFF_KEY).\n`,
    );
    return undefined;
  }
  return new ApiClient({ server, key });
}

/** A command that works on a folder against a project of a running server (pull, plan, apply, refs). */
export interface FolderCommand {
  /** As its messages name it: `flagstaff refs`. */
  readonly name: string;
  readonly usage: string;
  /** Its options besides the server options and `--project`/`-p`. */
  readonly options: ParseArgsOptionsConfig;
  /** It cannot run without `--project`. */
  readonly needsProject?: boolean;
}

/**
 * A folder command's arguments, loosely parsed (each value read as the command expects it): its
 * folder, the client of its server, and its options' values; undefined, said on stderr, when the
 * usage is wrong (not one folder, no project where one is needed) or the server is not named.
 */
export function folderCommandOf(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  output: CliOutput,
  command: FolderCommand,
) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: false,
    options: { ...SERVER_OPTIONS, ...PROJECT_OPTION, ...command.options },
  });
  const [dir, extra] = positionals;
  if (
    dir === undefined ||
    extra !== undefined ||
    (command.needsProject === true && values.project === undefined)
  ) {
    output.err(`Usage:\n${command.usage}\n`);
    return undefined;
  }
  const client = serverClientOf(values, env, output, command.name);
  return client === undefined ? undefined : { dir, client, values };
}
