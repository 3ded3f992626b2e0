import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { ApiClient } from './flags-as-code/api-client.ts';
import type { CliOutput } from './operator.ts';

/**
 * What every command over a running server's API takes (pull, plan, apply, refs, mcp): the
 * server and the key it acts as, from --server and --key or FLAGSTAFF_URL and FLAGSTAFF_KEY.
 */
export const SERVER_OPTIONS = { server: { type: 'string' }, key: { type: 'string' } } as const;

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

/**
 * The arguments of a command that works on a folder against a project of a running server (pull,
 * plan, apply, refs): the server options, `--project`/`-p`, and the command's `own`; loosely
 * parsed, each value read as the command expects it.
 */
export const serverCommandArgs = (argv: readonly string[], own: ParseArgsOptionsConfig) =>
  parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: false,
    options: { ...SERVER_OPTIONS, project: { type: 'string', short: 'p' }, ...own },
  });
