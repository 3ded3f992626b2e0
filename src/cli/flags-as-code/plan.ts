import { isDeepStrictEqual } from 'node:util';
import type { Desired } from './desired.ts';
import type { FlagEnvironmentState, FlagState, Json, SegmentState } from './model.ts';
import type { ServerProject, Versioned, VersionedFlag } from './server-state.ts';

// What apply would do, per resource and per field, and the requests that would do it. A plan is
// plain JSON (`plan --json`), so `apply --plan FILE` makes exactly the writes that were reviewed,
// each with If-Match of the version it was planned from (docs/flags-as-code.md).

export type ResourceKind = 'project' | 'environment' | 'segment' | 'flag';
export type Action = 'create' | 'update' | 'delete' | 'unmanaged' | 'awaiting-approval';

export interface FieldChange {
  readonly field: string;
  readonly before?: Json;
  readonly after?: Json;
}

/** One request of a plan. `ifMatch`: a version, or "previous" for the version the resource's previous write left. */
export interface PlannedWrite {
  readonly method: 'POST' | 'PATCH' | 'DELETE';
  /** `{id}` is the id the resource's first write (its creation) answered with. */
  readonly path: string;
  readonly body?: Json;
  readonly ifMatch?: number | 'previous';
  /** The guarded environment a flag write changes (it may become a change request). */
  readonly environment?: string;
}

export interface PlannedResource {
  readonly kind: ResourceKind;
  readonly key: string;
  readonly action: Action;
  readonly id?: string;
  readonly version?: number;
  readonly changes: readonly FieldChange[];
  readonly writes: readonly PlannedWrite[];
  /** For `awaiting-approval`: the open change request that already asks for this. */
  readonly changeRequest?: string;
  readonly environment?: string;
}

/** One merge-patch update of a resource to its desired state, with If-Match; undefined when nothing differs. */
function updateOf(
  kind: ResourceKind,
  key: string,
  current: { readonly id: string; readonly version: number; readonly state: unknown },
  desired: unknown,
  path: string,
): PlannedResource | undefined {
  const patch = mergeDiff(current.state as Json, desired as Json);
  if (Object.keys(patch).length === 0) return undefined;
  return {
    kind,
    key,
    action: 'update',
    id: current.id,
    version: current.version,
    changes: fieldChanges(current.state as Json, desired as Json),
    writes: [{ method: 'PATCH', path, body: patch, ifMatch: current.version }],
  };
}

export interface ProjectPlan {
  readonly project: string;
  readonly resources: readonly PlannedResource[];
}

const enc = encodeURIComponent;

/** RFC 7396 patch from `before` to `after`; objects named in `whole` (and arrays) are replaced, not merged. */
export function mergeDiff(
  before: Json,
  after: Json,
  whole: ReadonlySet<string> = new Set(),
): Record<string, Json> {
  const patch: Record<string, Json> = {};
  const b = before as Record<string, Json>;
  const a = after as Record<string, Json>;
  for (const key of Object.keys(a)) {
    if (isDeepStrictEqual(b[key], a[key])) continue;
    const both = [b[key], a[key]].every((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
    patch[key] = both && !whole.has(key) ? mergeDiff(b[key] as Json, a[key] as Json) : (a[key] as Json);
  }
  for (const key of Object.keys(b)) if (!(key in a)) patch[key] = null;
  return patch;
}

/** Field by field, with nested objects (metadata, environments) opened up to their fields. */
function fieldChanges(
  before: Json,
  after: Json,
  prefix = '',
  open: ReadonlySet<string> = new Set(),
): FieldChange[] {
  const changes: FieldChange[] = [];
  const b = (before ?? {}) as Record<string, Json>;
  const a = (after ?? {}) as Record<string, Json>;
  for (const key of [...new Set([...Object.keys(b), ...Object.keys(a)])]) {
    if (isDeepStrictEqual(b[key], a[key])) continue;
    const field = `${prefix}${key}`;
    if (open.has(key) && !Array.isArray(a[key]) && !Array.isArray(b[key])) {
      changes.push(...fieldChanges(b[key] as Json, a[key] as Json, `${field}.`, new Set(['*'])));
    } else if (open.has('*') && key in a && key in b && isObject(a[key]) && isObject(b[key])) {
      changes.push(...fieldChanges(b[key] as Json, a[key] as Json, `${field}.`));
    } else {
      changes.push({
        field,
        ...(key in b ? { before: b[key] } : {}),
        ...(key in a ? { after: a[key] } : {}),
      });
    }
  }
  return changes;
}

const isObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);

const without = <T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> => {
  const { [key]: _, ...rest } = value;
  return rest;
};

/** What the resource's files say, for a create (every field, as the API takes it). */
const creationChanges = (value: Record<string, Json>): FieldChange[] =>
  Object.entries(value).map(([field, after]) => ({ field, after }));

/** The server's rule ids kept for rules that are unchanged in content, so links to a rule survive (decision 1740). */
function withRuleIds(
  rules: readonly Json[],
  server: readonly string[] | undefined,
  serverStates: readonly Json[],
): Json[] {
  const used = new Set<number>();
  return rules.map((rule) => {
    const index = serverStates.findIndex((s, i) => !used.has(i) && isDeepStrictEqual(s, rule));
    const id = server?.[index];
    if (index < 0 || id === undefined) return rule;
    used.add(index);
    return { id, ...(rule as Record<string, Json>) };
  });
}

/** The merge patch of one environment's state; rules and other lists go whole. */
function environmentPatch(
  before: FlagEnvironmentState | undefined,
  after: FlagEnvironmentState,
  serverRules: readonly string[] | undefined,
): Record<string, Json> {
  const patch = mergeDiff((before ?? {}) as Json, after as Json, new Set(['defaultRollout', 'targeting']));
  if (patch.rules !== undefined && patch.rules !== null) {
    patch.rules = withRuleIds(after.rules, serverRules, (before?.rules ?? []) as Json[]);
  }
  return patch;
}

const FLAG_CREATE_FIELDS = ['key', 'name', 'type', 'description', 'variants', 'tags', 'metadata'] as const;

function flagWrites(
  project: string,
  desired: FlagState,
  current: VersionedFlag | undefined,
  guarded: ReadonlySet<string>,
): { writes: PlannedWrite[]; changes: FieldChange[] } {
  const writes: PlannedWrite[] = [];
  const flagFields = without(desired, 'environments');
  let changes: FieldChange[];
  if (current === undefined) {
    const body: Record<string, Json> = {};
    for (const field of FLAG_CREATE_FIELDS) body[field] = flagFields[field] as Json;
    writes.push({ method: 'POST', path: `/v1/projects/${enc(project)}/flags`, body });
    changes = creationChanges({
      ...(flagFields as unknown as Record<string, Json>),
      environments: desired.environments as Json,
    });
  } else {
    changes = fieldChanges(
      without(current.state, 'environments') as unknown as Json,
      flagFields as unknown as Json,
      '',
      new Set(['metadata']),
    );
  }
  const before = current === undefined ? undefined : without(current.state, 'environments');
  const flagPatch =
    before === undefined
      ? desired.archived
        ? { archived: true }
        : {}
      : mergeDiff(before as unknown as Json, flagFields as unknown as Json, new Set(['variants']));
  const open: Record<string, Json> = {};
  const gated: [string, Record<string, Json>][] = [];
  for (const [env, state] of Object.entries(desired.environments)) {
    const serverState = current?.state.environments[env];
    // A new flag's first patch sets every field of the environments its file gives.
    const patch = environmentPatch(serverState, state, current?.ruleIds[env]);
    if (current !== undefined) {
      changes.push(...fieldChanges((serverState ?? {}) as Json, state as Json, `environments.${env}.`));
    }
    if (Object.keys(patch).length === 0) continue;
    if (guarded.has(env)) gated.push([env, patch]);
    else open[env] = patch;
  }
  const idPath = current === undefined ? '/v1/flags/{id}' : `/v1/flags/${enc(current.id)}`;
  const firstIfMatch = current === undefined ? 'previous' : current.version;
  if (Object.keys(flagPatch).length > 0 || Object.keys(open).length > 0) {
    const body = { ...flagPatch, ...(Object.keys(open).length > 0 ? { environments: open } : {}) };
    writes.push({
      method: 'PATCH',
      path: idPath,
      body,
      ifMatch: writes.length === 0 ? firstIfMatch : 'previous',
    });
  }
  for (const [env, patch] of gated) {
    writes.push({
      method: 'PATCH',
      path: `${idPath}?environment=${enc(env)}`,
      body: patch,
      ifMatch: writes.length === 0 ? firstIfMatch : 'previous',
      environment: env,
    });
  }
  return { writes, changes };
}

/** Keys in an order where each comes after those it `needs` (cycles keep file order; the server refuses them). */
export function dependencyOrder(
  keys: readonly string[],
  needs: (key: string) => readonly string[],
): string[] {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const present = new Set(keys);
  const visit = (key: string) => {
    if (state.has(key)) return;
    state.set(key, 'visiting');
    for (const other of needs(key)) if (present.has(other)) visit(other);
    state.set(key, 'done');
    order.push(key);
  };
  for (const key of [...keys].sort()) visit(key);
  return order;
}

const segmentNeeds = (s: SegmentState | undefined) =>
  (s?.rules ?? []).flatMap((r) => (r.type === 'segment' ? [r.segment as string] : []));
const flagNeeds = (f: FlagState | undefined) =>
  Object.values(f?.environments ?? {}).flatMap((e) =>
    ((e.prerequisites as { flag: string }[] | undefined) ?? []).map((p) => p.flag),
  );

/** Everything apply would do for one project, in the order it would do it. */
export function planProject(
  desired: Desired,
  server: ServerProject,
  options: { prune: boolean },
): ProjectPlan {
  const key = desired.project.key;
  const base = `/v1/projects/${enc(key)}`;
  return {
    project: key,
    resources: [
      ...projectResource(desired.project, server, base),
      ...environmentResources(desired.project, server, base),
      ...segmentResources(desired, server, base),
      ...flagResources(desired, server),
      ...unmanagedResources(desired, server, base, options.prune),
    ],
  };
}

/** The project itself: created, or its name and description updated. */
function projectResource(
  project: Desired['project'],
  server: ServerProject,
  base: string,
): PlannedResource[] {
  const { key } = project;
  if (server.project === undefined) {
    const body = {
      key,
      name: project.name,
      description: project.description,
      environments: project.environments.map((e) => ({ key: e.key, name: e.name })),
    };
    return [
      {
        kind: 'project',
        key,
        action: 'create',
        changes: creationChanges(body as unknown as Record<string, Json>),
        writes: [{ method: 'POST', path: '/v1/projects', body }],
      },
    ];
  }
  const before = { name: server.project.state.name, description: server.project.state.description };
  const after = { name: project.name, description: project.description };
  const patch = mergeDiff(before, after);
  if (Object.keys(patch).length === 0) return [];
  return [
    {
      kind: 'project',
      key,
      action: 'update',
      id: server.project.id,
      version: server.project.version,
      changes: fieldChanges(before, after),
      writes: [{ method: 'PATCH', path: base, body: patch, ifMatch: server.project.version }],
    },
  ];
}

/** The environments the file names: each created or updated. */
function environmentResources(
  project: Desired['project'],
  server: ServerProject,
  base: string,
): PlannedResource[] {
  const out: PlannedResource[] = [];
  for (const env of project.environments) {
    const current = server.environments.get(env.key);
    const path = `${base}/environments/${enc(env.key)}`;
    if (current === undefined) {
      out.push(environmentCreation(env, server.project === undefined, base, path));
      continue;
    }
    const update = updateOf('environment', env.key, current, env, path);
    if (update !== undefined) out.push(update);
  }
  return out;
}

type DesiredEnvironment = Desired['project']['environments'][number];

/** A new environment: made with its project (key and name already), or posted; the rest patched. */
function environmentCreation(
  env: DesiredEnvironment,
  madeWithProject: boolean,
  base: string,
  path: string,
): PlannedResource {
  const { key: envKey, requiredApprovals, ...fields } = env;
  const writes: PlannedWrite[] = madeWithProject
    ? []
    : [{ method: 'POST', path: `${base}/environments`, body: { key: envKey, ...fields } }];
  const rest = mergeDiff(
    madeWithProject ? { name: env.name, description: '', protected: env.key === 'production' } : fields,
    { ...fields },
  );
  const extra = { ...rest, ...(requiredApprovals > 0 ? { requiredApprovals } : {}) };
  if (Object.keys(extra).length > 0) writes.push({ method: 'PATCH', path, body: extra, ifMatch: 'previous' });
  return {
    kind: 'environment',
    key: envKey,
    action: 'create',
    changes: creationChanges(env as unknown as Record<string, Json>),
    writes,
  };
}

/** The segments the file names, each after those its rules use. */
function segmentResources(desired: Desired, server: ServerProject, base: string): PlannedResource[] {
  const out: PlannedResource[] = [];
  const segmentOrder = dependencyOrder([...desired.segments.keys()], (k) =>
    segmentNeeds(desired.segments.get(k)?.state),
  );
  for (const segmentKey of segmentOrder) {
    const { state } = desired.segments.get(segmentKey) as { state: SegmentState };
    const current = server.segments.get(segmentKey);
    if (current === undefined) {
      out.push({
        kind: 'segment',
        key: segmentKey,
        action: 'create',
        changes: creationChanges(state as unknown as Record<string, Json>),
        writes: [{ method: 'POST', path: `${base}/segments`, body: state as unknown as Json }],
      });
      continue;
    }
    const update = updateOf('segment', segmentKey, current, state, `/v1/segments/${enc(current.id)}`);
    if (update !== undefined) out.push(update);
  }
  return out;
}

/** The flags the file names, each after its prerequisites. */
function flagResources(desired: Desired, server: ServerProject): PlannedResource[] {
  const guarded = new Set(
    desired.project.environments
      .filter((e) => (server.environments.get(e.key)?.state.requiredApprovals ?? 0) > 0)
      .map((e) => e.key),
  );
  const flagOrder = dependencyOrder([...desired.flags.keys()], (k) => flagNeeds(desired.flags.get(k)?.state));
  return flagOrder.flatMap((flagKey) => {
    const { state } = desired.flags.get(flagKey) as { state: FlagState };
    return flagResource(desired.project.key, flagKey, state, server, guarded);
  });
}

/**
 * One flag's writes; a guarded environment's write that an open change request already asks for
 * is not asked again, but shown awaiting that request's approval.
 */
function flagResource(
  projectKey: string,
  flagKey: string,
  state: FlagState,
  server: ServerProject,
  guarded: ReadonlySet<string>,
): PlannedResource[] {
  const current = server.flags.get(flagKey);
  const { writes, changes } = flagWrites(projectKey, state, current, guarded);
  if (writes.length === 0) return [];
  const common = {
    kind: 'flag' as const,
    key: flagKey,
    ...(current ? { id: current.id, version: current.version } : {}),
  };
  const requestFor = (w: PlannedWrite) =>
    w.environment === undefined || current === undefined
      ? undefined
      : server.openChangeRequests.find(
          (r) =>
            r.flagId === current.id && r.environment === w.environment && isDeepStrictEqual(r.patch, w.body),
        );
  const pending = writes.filter((w) => requestFor(w) !== undefined);
  const remaining = writes.filter((w) => !pending.includes(w));
  const out: PlannedResource[] = pending.map((w) => ({
    ...common,
    action: 'awaiting-approval',
    environment: w.environment as string,
    changeRequest: requestFor(w)?.id as string,
    changes: changes.filter((c) => c.field.startsWith(`environments.${w.environment}.`)),
    writes: [],
  }));
  if (remaining.length === 0) return out;
  const pendingFields = (c: FieldChange) =>
    pending.some((w) => c.field.startsWith(`environments.${w.environment}.`));
  out.push({
    ...common,
    action: current === undefined ? 'create' : 'update',
    changes: changes.filter((c) => !pendingFields(c)),
    writes: remaining,
  });
  return out;
}

/** What the server has that the file does not name: deleted with `prune`, else shown unmanaged. */
function unmanagedResources(
  desired: Desired,
  server: ServerProject,
  base: string,
  prune: boolean,
): PlannedResource[] {
  const out: PlannedResource[] = [];
  const unmanaged = (
    kind: ResourceKind,
    resourceKey: string,
    current: { id: string; version: number },
    path: string,
  ) =>
    out.push({
      kind,
      key: resourceKey,
      id: current.id,
      version: current.version,
      changes: [],
      ...(prune
        ? {
            action: 'delete' as const,
            writes: [{ method: 'DELETE' as const, path, ifMatch: current.version }],
          }
        : { action: 'unmanaged' as const, writes: [] }),
    });
  const extraFlags = [...server.flags.keys()].filter((k) => !desired.flags.has(k));
  // Dependants go first, so no deletion is refused for a prerequisite still in use.
  for (const flagKey of dependencyOrder(extraFlags, (k) => flagNeeds(server.flags.get(k)?.state)).reverse()) {
    const current = server.flags.get(flagKey) as Versioned<FlagState>;
    unmanaged('flag', flagKey, current, `/v1/flags/${enc(current.id)}`);
  }
  const extraSegments = [...server.segments.keys()].filter((k) => !desired.segments.has(k));
  for (const segmentKey of dependencyOrder(extraSegments, (k) =>
    segmentNeeds(server.segments.get(k)?.state),
  ).reverse()) {
    const current = server.segments.get(segmentKey) as Versioned<SegmentState>;
    unmanaged('segment', segmentKey, current, `/v1/segments/${enc(current.id)}`);
  }
  const named = new Set(desired.project.environments.map((e) => e.key));
  for (const [envKey, current] of server.environments) {
    if (!named.has(envKey)) unmanaged('environment', envKey, current, `${base}/environments/${enc(envKey)}`);
  }
  return out;
}

/** Whether a plan would change anything (unmanaged resources and pending approvals do not count). */
export const changesIn = (plans: readonly ProjectPlan[]) =>
  plans.flatMap((p) => p.resources).filter((r) => r.writes.length > 0);
