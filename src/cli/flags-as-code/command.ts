import { join, relative } from 'node:path';
import type { CliOutput } from '../operator.ts';
import { folderCommandOf } from '../server-options.ts';
import { type ApiClient, ApiError, type Progress } from './api-client.ts';
import { applyPlans, type Outcome } from './apply.ts';
import { desiredOf, isResourceFile } from './desired.ts';
import {
  formatProblem,
  type Problem,
  projectFolders,
  readFolder,
  refuseLinks,
  writeProjectFile,
  writeResources,
} from './files.ts';
import { compactFlag, compactProject, compactSegment } from './model.ts';
import { changesIn, type ProjectPlan, planProject } from './plan.ts';
import { renderOutcome, renderPlan } from './report.ts';
import { checkSavedPlan, type Replanned, readSavedPlan } from './saved-plan.ts';
import { readServerProject } from './server-state.ts';

export const FLAGS_AS_CODE_USAGE = `  pull       flagstaff pull DIR [--project P]
             write a project's environments, segments and flags as files (DIR/project.yaml,
             DIR/segments/*.yaml, DIR/flags/*.yaml); without --project, every project the key sees
             into DIR/<project>/ (or the project DIR already holds)
  plan       flagstaff plan DIR [--prune] [--json]
             what apply would change, per resource and field; exit 0 nothing, 2 changes, 1 error
  apply      flagstaff apply DIR [--prune] [--plan FILE]
             make those changes (If-Match on every update; guarded environments get change
             requests); --plan FILE applies a saved \`plan --json\` only if the files plan exactly
             that now (anything else is refused, nothing changed)
             pull, plan and apply talk to a running server: --server URL (or FLAGSTAFF_URL) and
             --key KEY (or FLAGSTAFF_KEY), acting as that key`;

interface Options {
  readonly dir: string;
  readonly client: ApiClient;
  readonly project: string | undefined;
  readonly prune: boolean;
  readonly json: boolean;
  readonly planFile: string | undefined;
}

function optionsOf(argv: readonly string[], env: NodeJS.ProcessEnv, output: CliOutput): Options | undefined {
  const parsed = folderCommandOf(argv, env, output, {
    name: 'flagstaff',
    usage: FLAGS_AS_CODE_USAGE,
    options: { prune: { type: 'boolean' }, json: { type: 'boolean' }, plan: { type: 'string' } },
  });
  if (parsed === undefined) return undefined;
  const { dir, client, values } = parsed;
  return {
    dir,
    client,
    project: values.project as string | undefined,
    prune: values.prune === true,
    json: values.json === true,
    planFile: values.plan as string | undefined,
  };
}

const count = (n: number) => n.toLocaleString('en-US');

/** Progress of a long read or write, on stderr so that what is printed on stdout stays the same. */
const progressOn =
  (output: CliOutput, command: string, verb: string, what: string): Progress =>
  (done, total) =>
    output.err(
      `flagstaff ${command}: ${verb} ${count(done)}${total === undefined ? '' : ` of ${count(total)}`} ${what}\n`,
    );

const describeError = (error: unknown) =>
  error instanceof ApiError
    ? `${error.message}${error.errors.length ? ` (${error.errors.map((e) => `${e.path}: ${e.message}`).join('; ')})` : ''}`
    : (error as Error).message;

async function pull(options: Options, output: CliOutput): Promise<number> {
  const { client, dir } = options;
  const targets: { key: string; dir: string }[] = [];
  if (options.project !== undefined) targets.push({ key: options.project, dir });
  else {
    const folders = await projectFolders(dir).catch(() => []);
    const own = folders.length === 1 && folders[0] === dir ? await readFolder(dir) : undefined;
    const key = (own?.folder.project?.value as { key?: unknown } | undefined)?.key;
    if (typeof key === 'string') targets.push({ key, dir });
    else {
      for (const p of await client.list<{ key: string }>('/v1/projects'))
        targets.push({ key: p.key, dir: join(dir, p.key) });
    }
  }
  // Every target is checked before any is written: a refused pull writes nothing.
  for (const target of targets) await refuseLinks(target.dir, target.dir !== dir);
  for (const target of targets) {
    const server = await readServerProject(
      client,
      target.key,
      progressOn(output, 'pull', 'fetched', `flags of ${target.key}`),
    );
    if (server.project === undefined) {
      output.err(`flagstaff pull: no project "${target.key}" on ${client.server}\n`);
      return 1;
    }
    // An environment a flagd document gives stays in that document, not in the flag's file.
    const { folder } = await readFolder(target.dir);
    const givenByFlagd = new Map<string, Set<string>>();
    for (const { environment, file } of folder.flagd) {
      for (const flagKey of Object.keys((file.value as { flags?: object } | undefined)?.flags ?? {})) {
        givenByFlagd.set(flagKey, (givenByFlagd.get(flagKey) ?? new Set()).add(environment));
      }
    }
    await writeProjectFile(target.dir, compactProject(server.project.state), client.server);
    const byKey = <T>(m: ReadonlyMap<string, T>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
    await writeResources(
      target.dir,
      'segments',
      byKey(server.segments).map(([key, s]) => ({ key, value: compactSegment(s.state) })),
      client.server,
      (value) => isResourceFile('segment', value),
    );
    await writeResources(
      target.dir,
      'flags',
      byKey(server.flags).map(([key, f]) => ({ key, value: compactFlag(f.state, givenByFlagd.get(key)) })),
      client.server,
      (value) => isResourceFile('flag', value),
    );
    output.out(
      `Pulled ${target.key} into ${target.dir}: ${server.environments.size} environments, ${server.segments.size} segments, ${server.flags.size} flags.\n`,
    );
  }
  return 0;
}

/** Reads and checks every project folder under DIR, then plans each against the server. */
async function plans(
  options: Options,
  output: CliOutput,
  command: 'plan' | 'apply',
): Promise<{ plans?: Replanned[]; problems: Problem[] }> {
  const folders = await projectFolders(options.dir);
  if (folders.length === 0) {
    return { problems: [{ file: options.dir, message: 'no project.yaml here, nor in any folder inside' }] };
  }
  const problems: Problem[] = [];
  const planned: Replanned[] = [];
  for (const dir of folders) {
    const { folder, problems: unreadable } = await readFolder(dir, relative(options.dir, dir));
    if (unreadable.length > 0) {
      problems.push(...unreadable);
      continue;
    }
    const key = (folder.project?.value as { key?: unknown } | undefined)?.key;
    const server =
      typeof key === 'string'
        ? await readServerProject(
            options.client,
            key,
            progressOn(output, command, 'fetched', `flags of ${key}`),
          )
        : undefined;
    const context = {
      segments: new Set(options.prune ? [] : server?.segments.keys()),
      flags: new Map(options.prune ? [] : [...(server?.flags ?? new Map())].map(([k, v]) => [k, v.state])),
    };
    const { desired, problems: invalid } = desiredOf(folder, context);
    problems.push(...invalid);
    if (desired !== undefined && server !== undefined)
      planned.push({ plan: planProject(desired, server, { prune: options.prune }), server });
  }
  return problems.length > 0 ? { problems } : { plans: planned, problems };
}

async function plan(options: Options, output: CliOutput): Promise<number> {
  const result = await plans(options, output, 'plan');
  if (result.plans === undefined) {
    for (const problem of result.problems) output.err(`${formatProblem(problem)}\n`);
    output.err(
      `flagstaff plan: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'} in the files; nothing planned.\n`,
    );
    return 1;
  }
  const projects = result.plans.map((p) => p.plan);
  const changing = changesIn(projects).length > 0;
  if (options.json)
    output.out(
      `${JSON.stringify({ server: options.client.server, changes: changing, projects }, null, 2)}\n`,
    );
  else output.out(renderPlan(projects, options.client.server));
  return changing ? 2 : 0;
}

/** What apply will do: the files' plan now; with --plan, only if it is the saved one (decision 1901). */
async function planToApply(
  options: Options,
  output: CliOutput,
): Promise<{ planned: readonly ProjectPlan[]; stale: readonly Outcome[] } | undefined> {
  const saved = options.planFile === undefined ? undefined : await readSavedPlan(options.planFile);
  // Its ids and versions are that server's: applied elsewhere they would name other things.
  if (saved !== undefined && saved.server !== options.client.server) {
    output.err(
      `flagstaff apply: ${options.planFile} was planned against ${saved.server}, not ${options.client.server}.\n`,
    );
    return undefined;
  }
  const result = await plans(options, output, 'apply');
  if (result.plans === undefined) {
    for (const problem of result.problems) output.err(`${formatProblem(problem)}\n`);
    output.err('flagstaff apply: the files have problems; nothing changed.\n');
    return undefined;
  }
  if (saved === undefined) {
    const planned = result.plans.map((p) => p.plan);
    output.out(renderPlan(planned, options.client.server));
    return { planned, stale: [] };
  }
  const checked = checkSavedPlan(saved, result.plans);
  if (checked.differences.length > 0) {
    for (const difference of checked.differences) output.err(`${difference}\n`);
    output.err(
      `flagstaff apply: ${options.planFile} is not what the files plan now; nothing changed. Run plan again and review it.\n`,
    );
    return undefined;
  }
  const stale = checked.stale.map(
    (resource): Outcome => ({
      kind: 'failed',
      resource,
      reason: `changed on the server since it was planned (at version ${resource.version ?? 'none'}); not overwritten: pull or plan again`,
    }),
  );
  return { planned: checked.plans, stale };
}

async function apply(options: Options, output: CliOutput): Promise<number> {
  const toApply = await planToApply(options, output);
  if (toApply === undefined) return 1;
  const { planned, stale } = toApply;
  if (changesIn(planned).length === 0 && stale.length === 0) {
    output.out('Nothing to apply.\n');
    return 0;
  }
  const outcomes = [
    ...stale,
    ...(await applyPlans(options.client, planned, progressOn(output, 'apply', 'applied', 'flags'))),
  ];
  for (const outcome of outcomes) {
    (outcome.kind === 'failed' ? output.err : output.out)(`${renderOutcome(outcome)}\n`);
  }
  const failed = outcomes.filter((o) => o.kind === 'failed').length;
  const requested = outcomes.filter((o) => o.kind === 'change-request').length;
  const done = outcomes.filter((o) => o.kind === 'done').length;
  output.out(
    `Applied: ${done} changed, ${requested} change request${requested === 1 ? '' : 's'}, ${failed} failed.\n`,
  );
  return failed > 0 ? 1 : 0;
}

/** `flagstaff pull|plan|apply …`; returns the exit code. */
export async function runFlagsAsCode(
  command: 'pull' | 'plan' | 'apply',
  argv: readonly string[],
  output: CliOutput,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const options = optionsOf(argv, env, output);
  if (options === undefined) return 1;
  try {
    if (command === 'pull') return await pull(options, output);
    if (command === 'plan') return await plan(options, output);
    return await apply(options, output);
  } catch (error) {
    output.err(`flagstaff ${command}: ${describeError(error)}\n`);
    return 1;
  }
}
