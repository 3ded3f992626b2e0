import { type ApiClient, ApiError } from './api-client.ts';
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
  /** The answer as the API gave it (rule ids and all). */
  readonly raw: Raw;
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
  readonly flags: ReadonlyMap<string, Versioned<FlagState>>;
  readonly openChangeRequests: readonly OpenChangeRequest[];
}

const path = (key: string) => `/v1/projects/${encodeURIComponent(key)}`;

export async function readServerProject(client: ApiClient, key: string): Promise<ServerProject> {
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
  const [environments, segments, summaries, requests] = await Promise.all([
    client.request<Raw[]>('GET', `${path(key)}/environments`).then((a) => a.body),
    client.list<Raw>(`${path(key)}/segments`),
    // Without ?archived= the list has archived flags too.
    client.list<{ key: string }>(`${path(key)}/flags`),
    client.list<OpenChangeRequest>(`${path(key)}/change-requests?status=open`).catch(() => []),
  ]);
  const flags: Raw[] = [];
  // A few at a time: the key's rate limit is shared with everything else it does.
  for (let i = 0; i < summaries.length; i += 8) {
    const batch = summaries.slice(i, i + 8);
    flags.push(
      ...(await Promise.all(
        batch.map((f) =>
          client.request('GET', `${path(key)}/flags/${encodeURIComponent(f.key)}`).then((a) => a.body),
        ),
      )),
    );
  }
  const state = projectState(project, environments);
  return {
    project: { id: project.id, version: project.version, state, raw: project },
    environments: new Map(
      environments.map((e) => [
        e.key,
        { id: e.id, version: e.version, state: state.environments.find((s) => s.key === e.key), raw: e },
      ]),
    ),
    segments: new Map(
      segments.map((s) => [s.key, { id: s.id, version: s.version, state: segmentState(s), raw: s }]),
    ),
    flags: new Map(flags.map((f) => [f.key, { id: f.id, version: f.version, state: flagState(f), raw: f }])),
    openChangeRequests: requests,
  } as ServerProject;
}
