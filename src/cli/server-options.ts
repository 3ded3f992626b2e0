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
