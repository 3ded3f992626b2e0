import { userInfo } from 'node:os';
import { COMMAND_LINE_OPERATOR } from '../domain/api-key.ts';
import { newId } from '../domain/ids.ts';
import type { Actor } from '../services/core/actor.ts';

/** Where a CLI command writes; tests pass their own. */
export interface CliOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

export const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/**
 * The operator at the command line: trusted like an organisation-wide admin key, since whoever
 * runs the CLI holds the database URL. Audit events name them by their login, as `nameOf` says.
 */
export function operator(nameOf: (login: string) => string): Actor {
  let login = 'unknown';
  try {
    login = userInfo().username;
  } catch {}
  return {
    principal: {
      type: 'user',
      id: COMMAND_LINE_OPERATOR,
      name: nameOf(login),
      role: 'admin',
      projectId: null,
      environments: null,
    },
    requestId: newId('cli'),
  };
}
