import type { FastifyRequest } from 'fastify';
import {
  type AccessTarget,
  authorizeEnvironments,
  type EnvironmentScope,
  refuseMorePower,
} from '../access/access-rules.ts';
import { type Principal, ROLES, type Role } from '../domain/api-key.ts';
import { isPlainObject } from '../domain/json.ts';
import { DEFAULT_ENVIRONMENT } from '../domain/project.ts';
import { accessScope, patchReach } from '../services/flags/patch-reach.ts';
import type { RateLimitBudget } from './plugins/rate-limit.ts';

/**
 * Who may call a route (docs/product.md §2 roles, §5 order of checks). Read from the request before it is
 * validated, so a key without access gets 403 whatever else is wrong with the request: every
 * reader below copes with missing or mistyped input by leaving the question to validation.
 */
export interface RouteAccess {
  /** The least role that may call the route. */
  readonly role: Role;
  /** What the request acts on, from its path or query. */
  readonly target: (request: FastifyRequest) => AccessTarget;
  /** The environments it touches, from its path or query; absent: none in particular. */
  readonly environments?: (request: FastifyRequest) => EnvironmentScope;
  /** Checks that need the parsed (not yet validated) body; they throw `forbidden`. */
  readonly body?: (principal: Principal, body: unknown, request: FastifyRequest) => void;
  /** The rate-limit budget; default management. */
  readonly rateLimit?: RateLimitBudget;
  /**
   * Also admits a flagd sync credential (`Bearer fsc.…`) derived for this scope
   * (`<project>/<environment>`), with an evaluator's right: flagd's HTTP sync reads the same
   * document its gRPC sync streams (decision 1974).
   */
  readonly syncScope?: (request: FastifyRequest) => string;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const param = (request: FastifyRequest, name: string) =>
  text((request.params as Record<string, unknown> | undefined)?.[name]);
const query = (request: FastifyRequest, name: string) =>
  text((request.query as Record<string, unknown> | undefined)?.[name]);

export const ANY = (): AccessTarget => ({ kind: 'any' });
export const ORGANISATION = (): AccessTarget => ({ kind: 'organisation' });
export const OWN_ACCOUNT = (): AccessTarget => ({ kind: 'own-account' });
export const PROJECT = (request: FastifyRequest): AccessTarget => ({
  kind: 'project',
  idOrKey: param(request, 'projectId') ?? '',
});
/** A target named by its id in the path parameter `name`. */
const byId =
  (kind: 'flag' | 'segment' | 'change-request' | 'api-key', name: string) =>
  (request: FastifyRequest): AccessTarget => ({ kind, id: param(request, name) ?? '' });
export const FLAG = byId('flag', 'flagId');
export const SEGMENT = byId('segment', 'segmentId');
export const CHANGE_REQUEST = byId('change-request', 'requestId');
export const API_KEY = byId('api-key', 'keyId');
/** Evaluation: `?project=` (organisation-wide keys must send it), else the key's own project. */
export const EVALUATED_PROJECT = (request: FastifyRequest): AccessTarget => ({
  kind: 'project',
  idOrKey: query(request, 'project'),
  evaluation: true,
});

/** The change reaches every environment: creating or deleting flags, environments, segments, projects. */
export const ALL = (): EnvironmentScope => 'all';
export const PATH_ENVIRONMENT = (request: FastifyRequest): EnvironmentScope => {
  const environment = param(request, 'envKey');
  return environment === undefined ? undefined : [environment];
};
/** `<project>/<envKey>` of the path, as a flagd sync selector names it. */
export const PATH_SYNC_SCOPE = (request: FastifyRequest): string =>
  `${param(request, 'projectId') ?? ''}/${param(request, 'envKey') ?? ''}`;

export const QUERY_ENVIRONMENT = (request: FastifyRequest): EnvironmentScope => [
  query(request, 'environment') ?? DEFAULT_ENVIRONMENT,
];

/** `{ environment? }` of the evaluation bodies, default production. */
export function bodyEnvironment(principal: Principal, body: unknown): void {
  const environment = isPlainObject(body) ? (body.environment ?? DEFAULT_ENVIRONMENT) : DEFAULT_ENVIRONMENT;
  if (typeof environment === 'string') authorizeEnvironments(principal, [environment]);
}

/** The environments a flag patch reaches (patchReach, shared with the flag service). */
function patchEnvironments(principal: Principal, patch: unknown, environment: string): void {
  authorizeEnvironments(principal, accessScope(patchReach(patch, environment)));
}

export function flagPatchEnvironments(principal: Principal, body: unknown, request: FastifyRequest): void {
  patchEnvironments(principal, body, query(request, 'environment') ?? DEFAULT_ENVIRONMENT);
}

/** A scheduled change `{ environment, patch }` reaches what its patch would reach now. */
export function scheduledPatchEnvironments(principal: Principal, body: unknown): void {
  if (!isPlainObject(body)) return;
  const environment = typeof body.environment === 'string' ? body.environment : DEFAULT_ENVIRONMENT;
  patchEnvironments(principal, body.patch, environment);
}

/** A new experiment `{ environment, … }` is set up in the environment it names. */
export function experimentEnvironment(principal: Principal, body: unknown): void {
  if (isPlainObject(body) && typeof body.environment === 'string') {
    authorizeEnvironments(principal, [body.environment]);
  }
}

/** A key cannot create a key with a higher role or wider environments than its own. */
export function newKeyPower(principal: Principal, body: unknown): void {
  if (!isPlainObject(body)) return;
  const role = ROLES.find((r) => r === body.role) ?? 'evaluator';
  const environments =
    body.environments === undefined || body.environments === null
      ? null
      : Array.isArray(body.environments)
        ? body.environments.filter((e): e is string => typeof e === 'string')
        : [];
  refuseMorePower(principal, role, environments, 'create');
}

/**
 * A route's rules for its Fastify `config`: the least role that may call it, what it acts on,
 * and what else it checks (decision 1782). `access('editor', FLAG, { environments: ALL })`.
 */
export const access = (
  role: Role,
  target: RouteAccess['target'],
  more: Omit<RouteAccess, 'role' | 'target'> = {},
): { readonly access: RouteAccess } => ({ access: { role, target, ...more } });
