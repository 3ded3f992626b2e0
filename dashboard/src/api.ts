import { useCallback, useEffect, useState } from 'react';
import type { Account, Invitation } from '../../src/domain/account.ts';
import type { ApiKey, Principal, Role } from '../../src/domain/api-key.ts';
import type { AuditEvent } from '../../src/domain/audit-event.ts';
import type { ChangeRequest } from '../../src/domain/change-request.ts';
import type { Flag, FlagType, JsonValue } from '../../src/domain/flag.ts';
import type { Environment, Project } from '../../src/domain/project.ts';
import type { Rule, Segment } from '../../src/domain/segment.ts';

export type {
  Account,
  ApiKey,
  AuditEvent,
  ChangeRequest,
  Environment,
  Flag,
  Invitation,
  Project,
  Role,
  Segment,
};

/** A scheduled change as the API answers it (docs/product.md §10). */
export interface ScheduledChange {
  readonly id: string;
  readonly flagId: string;
  readonly environment: string;
  readonly patch: Readonly<Record<string, unknown>>;
  readonly comment: string;
  readonly at: string;
  readonly status: 'pending' | 'applied' | 'failed' | 'cancelled';
  readonly author: { readonly type: string; readonly id: string; readonly name: string };
  readonly settledAt: string | null;
  readonly failure: string | null;
}

/** A PATCH of a flag answers the flag, or (202) a change request when the environment requires approvals. */
export const isChangeRequest = (answer: Flag | ChangeRequest): answer is ChangeRequest =>
  'approvals' in answer;

/** One entry of a project's flag list (docs/product.md §4): `enabled` is the state in `?environment=`. */
export interface FlagSummary {
  readonly id: string;
  readonly key: string;
  readonly name: string;
  readonly type: FlagType;
  readonly enabled: boolean;
  readonly description: string;
  readonly tags: readonly string[];
  readonly archived: boolean;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** In `?environment=`: the minute of the last evaluation, null when never. */
  readonly lastEvaluatedAt: string | null;
  /** In `?environment=`: why the flag is stale (docs/product.md §10), null when it is not. */
  readonly stale: { readonly reason: string; readonly detail: string } | null;
  /** Its state and last evaluation in every environment, by key (docs/decisions/1802). */
  readonly environments: Readonly<
    Record<string, { readonly enabled: boolean; readonly lastEvaluatedAt: string | null }>
  >;
}

/** GET /v1/flags/{id}/insights: evaluations per bucket, one series per variant and reason. */
export interface FlagInsights {
  readonly environment: string;
  readonly from: string;
  readonly to: string;
  readonly step: string;
  readonly buckets: readonly string[];
  readonly series: readonly {
    readonly variant: string | null;
    readonly reason: string;
    readonly counts: readonly number[];
    readonly total: number;
  }[];
  readonly total: number;
  readonly lastEvaluatedAt: string | null;
}

/** What uses a segment (GET /v1/segments/{id}/used-by). */
export interface SegmentUsers {
  readonly flags: readonly { id: string; key: string; name: string; environments: readonly string[] }[];
  readonly segments: readonly { id: string; key: string; name: string }[];
}

export interface Me {
  /** Who the API takes the session to be. */
  readonly actor: Principal;
  readonly account: Account | null;
}

export interface Explanation {
  readonly key: string;
  readonly value: JsonValue;
  readonly reason: string;
  readonly variant: string | null;
  readonly ruleId: string | null;
  readonly targetMatched: boolean;
  /** The prerequisite flag that did not serve a required variant, if one did not. */
  readonly failedPrerequisite: string | null;
  /** With reason `error`: OpenFeature's code (PARSE_ERROR) and what is wrong. */
  readonly errorCode?: string;
  readonly errorMessage?: string;
  /** What OFREP answers instead for the same context, when it differs. */
  readonly ofrepErrorCode: 'TARGETING_KEY_MISSING' | null;
}

/** One flag of the user view (POST /v1/projects/{p}/explain): its result, what decided it, and the rule as stored. */
export interface UserViewFlag extends Explanation {
  readonly name: string;
  readonly type: FlagType;
  readonly rule: {
    readonly number: number;
    readonly id: string;
    readonly description?: string;
    readonly matchAll: boolean;
    readonly segments: readonly string[];
    readonly conditions: readonly Rule[];
  } | null;
}

export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/** An RFC 9457 problem from the API, thrown by `api()`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: readonly FieldError[];

  constructor(
    status: number,
    body: { detail?: string; title?: string; code?: string; errors?: FieldError[] },
  ) {
    super(body.detail ?? body.title ?? `The server answered ${status}.`);
    this.status = status;
    this.code = body.code ?? 'unknown';
    this.errors = body.errors ?? [];
  }
}

/** Called when any request finds the session gone, so the app can ask to sign in again. */
let onSignedOut: () => void = () => {};
export const whenSignedOut = (handler: () => void) => {
  onSignedOut = handler;
};

export interface Page<T> {
  readonly items: T[];
  /** The next page's path (from the `Link` header), when more remain. */
  readonly next: string | null;
  /** Counted lists (docs/decisions/1800): the previous page's path, when there is one. */
  readonly previous: string | null;
  /** Counted lists: how many items match on every page together (`X-Total-Count`), else null. */
  readonly total: number | null;
  /** Counted lists: how many come before this page's first (`X-Page-Offset`). */
  readonly offset: number;
}

async function request(method: string, path: string, body?: unknown, ifMatch?: number): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (ifMatch !== undefined) headers['if-match'] = `"${ifMatch}"`;
  let response: Response;
  try {
    response = await fetch(path.startsWith('/v1/') ? path : `/v1${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, { detail: 'The server cannot be reached. Check your connection and try again.' });
  }
  if (!response.ok) {
    const problem = await response.json().catch(() => ({}));
    if (response.status === 401 && !path.startsWith('/auth/')) onSignedOut();
    throw new ApiError(response.status, problem);
  }
  return response;
}

/** Calls the /v1 API as the signed-in user; resolves to the JSON body (undefined for 204). */
export async function api<T>(method: string, path: string, body?: unknown, ifMatch?: number): Promise<T> {
  const response = await request(method, path, body, ifMatch);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** A list, the paths of the pages either side of it, and (counted lists) where it stands in the whole. */
export async function apiPage<T>(path: string): Promise<Page<T>> {
  const response = await request('GET', path);
  const link = response.headers.get('link') ?? '';
  const linked = (rel: string) => new RegExp(`<([^>]+)>;\\s*rel="${rel}"`).exec(link)?.[1] ?? null;
  const total = response.headers.get('x-total-count');
  return {
    items: (await response.json()) as T[],
    next: linked('next'),
    previous: linked('prev'),
    total: total === null ? null : Number(total),
    offset: Number(response.headers.get('x-page-offset') ?? 0),
  };
}

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: ApiError | undefined;
  readonly loading: boolean;
  readonly reload: () => void;
  readonly setData: (data: T) => void;
}

/** GETs `path` (null: nothing yet) and keeps the answer; `reload()` asks again. */
export const useApi = <T>(path: string | null): Loaded<T> => useLoaded(path, getJson<T>);

/** One page of a list at `path` (null: nothing yet), with the paths either side and its count. */
export const usePage = <T>(path: string | null): Loaded<Page<T>> => useLoaded(path, apiPage<T>);

const getJson = <T>(path: string): Promise<T> => api<T>('GET', path);

/** Loads `path` with `load` and keeps the answer; `reload()` asks again. */
function useLoaded<T>(path: string | null, load: (path: string) => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ path: string | null; data?: T; error?: ApiError }>({ path: null });
  const [generation, setGeneration] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: generation is the reload signal
  useEffect(() => {
    if (path === null) return;
    let current = true;
    load(path).then(
      (data) => current && setState({ path, data }),
      (error: ApiError) => current && setState({ path, error }),
    );
    return () => {
      current = false;
    };
  }, [path, load, generation]);
  const fresh = state.path === path;
  return {
    data: fresh ? state.data : undefined,
    error: fresh ? state.error : undefined,
    loading: path !== null && (!fresh || (state.data === undefined && state.error === undefined)),
    reload: useCallback(() => setGeneration((g) => g + 1), []),
    setData: useCallback((data: T) => setState({ path, data }), [path]),
  };
}

export const enc = encodeURIComponent;
