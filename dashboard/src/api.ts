import { useCallback, useEffect, useState } from 'react';
import type { Static } from 'typebox';
import type { Role } from '../../src/domain/api-key.ts';
import type {
  AccountSchema,
  CreatedInvitationSchema,
  CreatedPasswordResetSchema,
  InvitationPreviewSchema,
  InvitationSchema,
  MeSchema,
  ResetPreviewSchema,
  SignInOptionsSchema,
} from '../../src/domain/schemas/account-schemas.ts';
import type { StoredCodeReferenceSchema } from '../../src/domain/schemas/code-reference-schemas.ts';
import type { ExplanationSchema, UserViewSchema } from '../../src/domain/schemas/evaluation-schemas.ts';
import type { ExperimentResultsSchema } from '../../src/domain/schemas/experiment-results.ts';
import type { ExperimentSchema } from '../../src/domain/schemas/experiment-schema.ts';
import type { DependantSchema, FlagSchema, FlagSummarySchema } from '../../src/domain/schemas/flag-schema.ts';
import type { FlagInsightsSchema, TopFlagsSchema } from '../../src/domain/schemas/insights-schemas.ts';
import type { MetricSchema } from '../../src/domain/schemas/metric-schema.ts';
import type {
  ChangeRequestSchema,
  ScheduledChangeSchema,
} from '../../src/domain/schemas/pending-change-schemas.ts';
import type { FieldErrorSchema } from '../../src/domain/schemas/problem-schema.ts';
import type { ReleasePlanSchema } from '../../src/domain/schemas/release-schemas.ts';
import type * as Resources from '../../src/domain/schemas/resource-schemas.ts';
import type {
  AttemptSchema,
  CreatedWebhookSchema,
  DeliverySchema,
  TestReportSchema,
  WebhookSchema,
} from '../../src/domain/schemas/webhook-schemas.ts';

// The API's answers as the server's wire contract states them (decision 1870): each type is the
// static type of the response schema the server serializes with, imported as a type only, so no
// server code reaches the bundle and a field the server gains or loses is one the dashboard sees.

export type { Role };
/**
 * The resources of src/domain/schemas/resource-schemas.ts: keys, the audit log, environments,
 * projects and segments; what uses a segment (GET /v1/segments/{id}/used-by); a new key's
 * secret, seen once; a key's flagd sync selector per environment.
 */
export type ApiKey = Static<typeof Resources.ApiKeySchema>;
export type AuditEvent = Static<typeof Resources.AuditEventSchema>;
export type Environment = Static<typeof Resources.EnvironmentSchema>;
export type Project = Static<typeof Resources.ProjectSchema>;
export type Segment = Static<typeof Resources.SegmentSchema>;
export type SegmentUsers = Static<typeof Resources.SegmentUsersSchema>;
export type CreatedApiKey = Static<typeof Resources.CreatedApiKeySchema>;
export type SyncSelector = Static<typeof Resources.SyncSelectorSchema>;
export type Account = Static<typeof AccountSchema>;
export type ChangeRequest = Static<typeof ChangeRequestSchema>;
export type Experiment = Static<typeof ExperimentSchema>;
export type ExperimentResults = Static<typeof ExperimentResultsSchema>;
export type Metric = Static<typeof MetricSchema>;
export type Flag = Static<typeof FlagSchema>;
export type Invitation = Static<typeof InvitationSchema>;
/** A scheduled change as the API answers it (docs/product.md §10). */
export type ScheduledChange = Static<typeof ScheduledChangeSchema>;
export type ReleasePlan = Static<typeof ReleasePlanSchema>;
/** One entry of a project's flag list (docs/product.md §4): `enabled` is the state in `?environment=`. */
export type FlagSummary = Static<typeof FlagSummarySchema>;
/** GET /v1/flags/{id}/insights: evaluations per bucket, one series per variant and reason. */
export type FlagInsights = Static<typeof FlagInsightsSchema>;
/** Who the API takes the session to be, and their account when it is a person. */
export type Me = Static<typeof MeSchema>;
/** What decided one flag's evaluation for a context (POST /v1/projects/{p}/flags/{key}/explain). */
export type Explanation = Static<typeof ExplanationSchema>;
/** Where a repository's branch names a flag, as `flagstaff refs` reported it (GET /v1/projects/{p}/code-references). */
export type CodeReference = Static<typeof StoredCodeReferenceSchema>;
/** One flag of the user view (POST /v1/projects/{p}/explain): its result, what decided it, and the rule as stored. */
export type UserViewFlag = Static<typeof UserViewSchema>['flags'][number];
export type FieldError = Static<typeof FieldErrorSchema>;
/** Answers seen once: an invitation's or a reset's link. */
export type CreatedInvitation = Static<typeof CreatedInvitationSchema>;
export type CreatedPasswordReset = Static<typeof CreatedPasswordResetSchema>;
/** What a one-time link offers before it is used, and how this server lets people sign in. */
export type InvitationPreview = Static<typeof InvitationPreviewSchema>;
export type ResetPreview = Static<typeof ResetPreviewSchema>;
export type SignInOptions = Static<typeof SignInOptionsSchema>;
/** A flag that requires another, and where. */
export type Dependant = Static<typeof DependantSchema>;
/** The most evaluated flags of a project in an environment. */
export type TopFlagCounts = Static<typeof TopFlagsSchema>;
/** A project's webhooks, their deliveries with each attempt, and a test event's report. */
export type Webhook = Static<typeof WebhookSchema>;
export type CreatedWebhook = Static<typeof CreatedWebhookSchema>;
export type Attempt = Static<typeof AttemptSchema>;
export type Delivery = Static<typeof DeliverySchema>;
export type TestReport = Static<typeof TestReportSchema>;

/** A PATCH of a flag answers the flag, or (202) a change request when the environment requires approvals. */
export const isChangeRequest = (answer: Flag | ChangeRequest): answer is ChangeRequest =>
  'approvals' in answer;

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
export const usePage = <T>(path: string | null): Loaded<Page<T>> => useLoaded(path, apiPage<T>, KEEP_ROWS);

/**
 * Every item of the list at `path`, page after page by its `next` links: for a list a picker or
 * a lookup needs whole (projects, invitations, API keys), however long it grows.
 */
export async function allItems<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  for (let next: string | null = path; next !== null; ) {
    const page: Page<T> = await apiPage<T>(next);
    items.push(...page.items);
    next = page.next;
  }
  return items;
}

/** The whole list at `path` (`allItems`), loaded like any other answer. */
export const useAll = <T>(path: string | null): Loaded<T[]> => useLoaded(path, allItems<T>);

/**
 * A list's next page, or the same list searched, keeps the rows on screen until the new ones
 * arrive (`loading` says it is asking), instead of a "Loading" that makes the page jump.
 */
const KEEP_ROWS = true;

const getJson = <T>(path: string): Promise<T> => api<T>('GET', path);

/**
 * Loads `path` with `load` and keeps the answer; `reload()` asks again. `keepWhileLoading`
 * shows the last answer (of the previous path) until the new one arrives.
 */
function useLoaded<T>(
  path: string | null,
  load: (path: string) => Promise<T>,
  keepWhileLoading = false,
): Loaded<T> {
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
    data: fresh || keepWhileLoading ? state.data : undefined,
    error: fresh ? state.error : undefined,
    loading: path !== null && (!fresh || (state.data === undefined && state.error === undefined)),
    reload: useCallback(() => setGeneration((g) => g + 1), []),
    setData: useCallback((data: T) => setState({ path, data }), [path]),
  };
}

export const enc = encodeURIComponent;
