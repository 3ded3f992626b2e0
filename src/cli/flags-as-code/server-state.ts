import { type ApiClient, ApiError, type Progress } from './api-client.ts';
import {
  type FlagState,
  flagState,
  type ProjectState,
  projectState,
  type SegmentState,
  segmentState,
} from './model.ts';

// What the server has for one project, read over the API as the key sees it.

// biome-ignore lint/suspicious/noExplicitAny: the API's own JSON, read field by field
type Raw = any;

export interface Versioned<T> {
  readonly id: string;
  readonly version: number;
  readonly state: T;
}

/** A flag as the server has it: its canonical form, and the ids of its rules by environment, so unchanged rules keep them. */
export interface VersionedFlag extends Versioned<FlagState> {
  readonly ruleIds: Readonly<Record<string, readonly string[]>>;
}

export interface OpenChangeRequest {
  readonly id: string;
  readonly flagId: string;
  readonly environment: string;
  readonly patch: unknown;
  readonly requiredApprovals: number;
  readonly approvals: readonly unknown[];
}

export interface ServerProject {
  /** Undefined: no such project yet. */
  readonly project: Versioned<ProjectState> | undefined;
  readonly environments: ReadonlyMap<string, Versioned<ProjectState['environments'][number]>>;
  readonly segments: ReadonlyMap<string, Versioned<SegmentState>>;
  readonly flags: ReadonlyMap<string, VersionedFlag>;
  readonly openChangeRequests: readonly OpenChangeRequest[];
}

const path = (key: string) => `/v1/projects/${encodeURIComponent(key)}`;

/** A flag of the list, whole (`?configuration=true`), as the CLI keeps it: nothing of the answer beside. */
function versionedFlag(f: Raw): VersionedFlag {
  const ruleIds: Record<string, string[]> = {};
  for (const [env, config] of Object.entries<Raw>(f.environments ?? {})) {
    ruleIds[env] = ((config.rules ?? []) as { id: string }[]).map((r) => r.id);
  }
  return { id: f.id, version: f.version, state: flagState(f), ruleIds };
}

/**
 * The project as the key sees it. Its flags come whole from the list, a thousand a page
 * (decision 1960), each turned into its canonical form as its page arrives; `progress` hears how
 * many are read when they take more than one page.
 */
export async function readServerProject(
  client: ApiClient,
  key: string,
  progress?: Progress,
): Promise<ServerProject> {
  let project: Raw;
  try {
    project = (await client.request('GET', path(key))).body;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      return {
        project: undefined,
        environments: new Map(),
        segments: new Map(),
        flags: new Map(),
        openChangeRequests: [],
      };
    }
    throw error;
  }
  const flags = new Map<string, VersionedFlag>();
  const [environments, segments, requests] = await Promise.all([
    client.request<Raw[]>('GET', `${path(key)}/environments`).then((a) => a.body),
    client.list<Raw>(`${path(key)}/segments`),
    client.list<OpenChangeRequest>(`${path(key)}/change-requests?status=open`).catch(() => []),
    // Without ?archived= the list has archived flags too.
    client.list<Raw>(`${path(key)}/flags?configuration=true`, {
      each: (f) => flags.set(f.key, versionedFlag(f)),
      ...(progress === undefined ? {} : { progress }),
    }),
  ]);
  const state = projectState(project, environments);
  return {
    project: { id: project.id, version: project.version, state },
    environments: new Map(
      environments.map((e) => [
        e.key,
        { id: e.id, version: e.version, state: state.environments.find((s) => s.key === e.key) },
      ]),
    ),
    segments: new Map(segments.map((s) => [s.key, { id: s.id, version: s.version, state: segmentState(s) }])),
    flags,
    openChangeRequests: requests,
  } as ServerProject;
}
