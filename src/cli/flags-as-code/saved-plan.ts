import { readFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import type { PlannedResource, PlannedWrite, ProjectPlan } from './plan.ts';
import type { ServerProject } from './server-state.ts';

// `apply --plan FILE` (decision 1901): the saved plan is what a person reviewed, never a list of
// requests to run. apply plans again from the files and the server, and makes the writes of that
// plan only where they are the saved plan's, request for request; any other difference refuses
// the whole apply before anything is sent. A resource changed on the server since it was planned
// is the one difference that fails alone, without being written, as an update's stale If-Match would.

export interface SavedPlan {
  readonly server: string;
  readonly projects: readonly ProjectPlan[];
}

/** A project planned again from its files, with the server state it was planned against. */
export interface Replanned {
  readonly plan: ProjectPlan;
  readonly server: ServerProject;
}

export interface SavedPlanCheck {
  /** What differs between the saved plan and the plan the files give now; empty: the same. */
  readonly differences: readonly string[];
  /** The plans to apply: the files' own, without the resources changed on the server since. */
  readonly plans: readonly ProjectPlan[];
  /** Resources changed on the server since they were planned: not written. */
  readonly stale: readonly PlannedResource[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The saved plan in FILE (`plan --json`); throws with a clear message when it is not one. */
export async function readSavedPlan(file: string): Promise<SavedPlan> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `${file} is not a saved plan (JSON of flagstaff plan --json): ${(error as Error).message}`,
    );
  }
  const wellFormed =
    isObject(value) &&
    typeof value.server === 'string' &&
    Array.isArray(value.projects) &&
    value.projects.every(
      (p) =>
        isObject(p) &&
        typeof p.project === 'string' &&
        Array.isArray(p.resources) &&
        p.resources.every(isObject),
    );
  if (!wellFormed) throw new Error(`${file} is not a saved plan (JSON of flagstaff plan --json)`);
  return value as unknown as SavedPlan;
}

const KINDS: ReadonlySet<string> = new Set(['project', 'environment', 'segment', 'flag']);
const nameOf = (r: Pick<PlannedResource, 'kind' | 'key'>) => `${String(r.kind)} ${String(r.key)}`;
const writing = (plan: ProjectPlan) =>
  plan.resources.filter((r) => Array.isArray(r.writes) && r.writes.length > 0);

const MAX_SHOWN = 160;
function showWrite(write: PlannedWrite | undefined): string {
  if (write === undefined) return 'nothing';
  const body = write.body === undefined ? '' : ` ${JSON.stringify(write.body)}`;
  const text = `${write.method} ${write.path}${body}${write.ifMatch === undefined ? '' : ` (If-Match ${write.ifMatch})`}`;
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

/** The resource as the server has it now: its id and version, if it exists. */
function current(server: ServerProject, resource: PlannedResource) {
  if (resource.kind === 'project') return server.project;
  const of = { environment: server.environments, segment: server.segments, flag: server.flags }[
    resource.kind
  ];
  return of?.get(resource.key);
}

/** Whether the server changed the resource since the saved plan read it (created, changed or deleted it). */
function changedSince(server: ServerProject, saved: PlannedResource): boolean {
  const now = current(server, saved);
  if (saved.id === undefined) return now !== undefined;
  return now === undefined || now.id !== saved.id || now.version !== saved.version;
}

/** How one saved resource differs from the files' plan of it: the first thing that does. */
function resourceDifference(saved: PlannedResource, mine: PlannedResource | undefined): string | undefined {
  const name = nameOf(saved);
  if (mine === undefined) {
    return `${name}: the saved plan sends ${showWrite(saved.writes[0])}; the files plan no change to it`;
  }
  if (saved.action !== mine.action) {
    return `${name}: the saved plan would ${String(saved.action)} it; the files plan to ${mine.action} it`;
  }
  const count = Math.max(saved.writes.length, mine.writes.length);
  for (let i = 0; i < count; i++) {
    if (!isDeepStrictEqual(saved.writes[i], mine.writes[i])) {
      return `${name}: request ${i + 1} of the saved plan is ${showWrite(saved.writes[i])}; the files give ${showWrite(mine.writes[i])}`;
    }
  }
  if (!isDeepStrictEqual(saved, mine))
    return `${name}: the saved plan's changes are not those the files give`;
  return undefined;
}

/** One project's saved plan against its plan now: differences, and the saved resources now stale. */
function compareProject(
  saved: ProjectPlan,
  now: Replanned,
): { differences: string[]; stale: PlannedResource[] } {
  const differences: string[] = [];
  const stale: PlannedResource[] = [];
  // The plan now, as JSON would carry it, so that an absent field and `undefined` compare alike.
  const mine = new Map(
    writing(JSON.parse(JSON.stringify(now.plan)) as ProjectPlan).map((r) => [nameOf(r), r] as const),
  );
  const seen = new Set<string>();
  for (const resource of writing(saved)) {
    const name = nameOf(resource);
    if (seen.has(name)) differences.push(`${name}: the saved plan names it twice`);
    seen.add(name);
    if (!KINDS.has(resource.kind)) differences.push(`${name}: not a kind of resource apply writes`);
    else if (changedSince(now.server, resource)) stale.push(resource);
    else {
      const difference = resourceDifference(resource, mine.get(name));
      if (difference !== undefined) differences.push(difference);
    }
  }
  for (const [name, resource] of mine) {
    if (!seen.has(name))
      differences.push(
        `${name}: the files plan ${showWrite(resource.writes[0])}, which the saved plan does not`,
      );
  }
  return { differences: differences.map((d) => `project ${saved.project}: ${d}`), stale };
}

/** The saved plan checked against the plans the files give now (decision 1901). */
export function checkSavedPlan(saved: SavedPlan, now: readonly Replanned[]): SavedPlanCheck {
  const differences: string[] = [];
  const stale: PlannedResource[] = [];
  const skipped = new Map<string, Set<string>>();
  const byProject = new Map(now.map((r) => [r.plan.project, r] as const));
  for (const project of saved.projects) {
    const replanned = byProject.get(project.project);
    if (replanned === undefined) {
      if (writing(project).length > 0) {
        differences.push(`project ${project.project}: no folder of the files is this project`);
      }
      continue;
    }
    const compared = compareProject(project, replanned);
    differences.push(...compared.differences);
    stale.push(...compared.stale);
    skipped.set(project.project, new Set(compared.stale.map(nameOf)));
  }
  for (const { plan } of now) {
    if (!skipped.has(plan.project) && writing(plan).length > 0) {
      differences.push(`project ${plan.project}: the files change it, and the saved plan does not`);
    }
  }
  const plans = now.map(({ plan }) => ({
    ...plan,
    resources: plan.resources.filter(
      (r) => !(r.writes.length > 0 && skipped.get(plan.project)?.has(nameOf(r))),
    ),
  }));
  return { differences, plans, stale };
}
