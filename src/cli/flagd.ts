import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { DomainError } from '../domain/errors.ts';
import { composeNode } from '../main.ts';
import type { Services } from '../services/services.ts';
import { openStore } from '../storage/open-store.ts';
import { type CliOutput, operator, processOutput } from './operator.ts';
import { ENVIRONMENT_OPTION, PROJECT_OPTION } from './server-options.ts';

export const FLAGD_USAGE = `  import     flagstaff import --project P --environment E [--strict] [--bypass-approvals] FILE
             load a flagd flags document (FILE, or - for standard input) into an environment;
             flags whose targeting cannot work are imported with a warning, or with --strict refused;
             an import reaching an environment that requires approvals becomes a change request,
             unless --bypass-approvals writes it at once (audited as such)
  export     flagstaff export --project P --environment E [FILE]
             write an environment as a flagd flags document (to FILE, or standard output)`;

export type { CliOutput } from './operator.ts';

const flagdOperator = () => operator((login) => `${login} (command line)`);

interface Target {
  readonly project: string;
  readonly environment: string;
  readonly file: string | undefined;
  readonly strict: boolean;
  readonly bypassApprovals: boolean;
}

function targetOf(command: string, argv: readonly string[], output: CliOutput): Target | undefined {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: false,
    options: {
      ...PROJECT_OPTION,
      environment: ENVIRONMENT_OPTION,
      strict: { type: 'boolean' },
      'bypass-approvals': { type: 'boolean' },
    },
  });
  const [file, extra] = positionals;
  const { project, environment } = values;
  if (typeof project !== 'string' || typeof environment !== 'string' || extra !== undefined) {
    output.err(`Usage:\n${FLAGD_USAGE}\n`);
    return undefined;
  }
  if (command === 'import' && file === undefined) {
    output.err('flagstaff import: name the flagd document to read (or - for standard input).\n');
    return undefined;
  }
  return {
    project,
    environment,
    file,
    strict: values.strict === true,
    bypassApprovals: values['bypass-approvals'] === true,
  };
}

async function readInput(file: string): Promise<string> {
  if (file !== '-') return readFile(file, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A domain error as the lines an operator reads; anything else is the caller's to report. */
function reportError(error: unknown, output: CliOutput): number {
  if (!(error instanceof DomainError)) throw error;
  output.err(`${error.message}\n`);
  for (const e of error.errors ?? []) output.err(`  ${e.path}: ${e.message}\n`);
  return 1;
}

async function withServices<T>(config: Config, work: (services: Services) => Promise<T>): Promise<T> {
  const store = await openStore(config.databaseUrl);
  try {
    return await work(composeNode(store).services);
  } finally {
    await store.close();
  }
}

/** `flagstaff import|export …`; returns the exit code: 0 done, 1 refused, 2 usage. */
export async function runFlagdCommand(
  command: 'import' | 'export',
  argv: readonly string[],
  config: Config,
  output: CliOutput = processOutput,
): Promise<number> {
  const target = targetOf(command, argv, output);
  if (target === undefined) return 2;
  const { project, environment, file, strict, bypassApprovals } = target;
  if (command === 'import') {
    let document: unknown;
    try {
      document = JSON.parse(await readInput(file as string));
    } catch (error) {
      output.err(`flagstaff import: ${file} is not a JSON document: ${(error as Error).message}\n`);
      return 1;
    }
    return withServices(config, async (services) => {
      try {
        // The operator holds the database, yet the gate holds for them too unless they say otherwise.
        const outcome = await services.flagd.import(flagdOperator(), project, environment, document, {
          strict,
          approvals: bypassApprovals ? 'bypassed' : 'required',
        });
        if ('request' in outcome) {
          const { id, environments } = outcome.request;
          output.out(
            `Change request ${id} made: the import waits for approvals in ${environments.join(', ')}` +
              ' (or run again with --bypass-approvals).\n',
          );
          return 0;
        }
        const result = outcome.applied;
        const list = (keys: readonly string[]) => (keys.length > 0 ? keys.join(', ') : '—');
        output.out(
          `Imported into ${project}/${environment}:\n` +
            `  created:   ${list(result.created)}\n` +
            `  updated:   ${list(result.updated)}\n` +
            `  unchanged: ${list(result.unchanged)}\n`,
        );
        for (const w of result.warnings) output.err(`warning: ${w.flag}: ${w.path}: ${w.message}\n`);
        return 0;
      } catch (error) {
        return reportError(error, output);
      }
    });
  }
  return withServices(config, async (services) => {
    try {
      const { document, warnings } = await services.flagd.export(flagdOperator(), project, environment);
      const text = `${JSON.stringify(document, null, 2)}\n`;
      if (file === undefined || file === '-') output.out(text);
      else await writeFile(file, text);
      for (const w of warnings) {
        output.err(`warning: ${w.flag}${w.rule ? ` (rule ${w.rule})` : ''}: ${w.message}\n`);
      }
      return 0;
    } catch (error) {
      return reportError(error, output);
    }
  });
}
