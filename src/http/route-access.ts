import type { FastifyRequest } from 'fastify';
import { type Principal, ROLES, type Role } from '../domain/api-key.ts';
import { isPlainObject } from '../domain/json.ts';
import { DEFAULT_ENVIRONMENT } from '../domain/project.ts';
import {
  type AccessTarget,
  authorizeEnvironments,
  type EnvironmentScope,
  refuseMorePower,
} from '../services/access.ts';
import { accessScope, patchReach } from '../services/patch-reach.ts';
import type { RateLimitBudget } from './plugins/rate-limit.ts';

/**
 * Who may call a route (SPEC §2 roles, §5 order of checks). Read from the request before it is
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
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const param = (request: FastifyRequest, name: string) =>
  text((request.params as Record<string, unknown> | undefined)?.[name]);
const query = (request: FastifyRequest, name: string) =>
  text((request.query as Record<string, unknown> | undefined)?.[name]);

const ANY = (): AccessTarget => ({ kind: 'any' });
const ORGANISATION = (): AccessTarget => ({ kind: 'organisation' });
const OWN_ACCOUNT = (): AccessTarget => ({ kind: 'own-account' });
const PROJECT = (request: FastifyRequest): AccessTarget => ({
  kind: 'project',
  idOrKey: param(request, 'projectId') ?? '',
});
/** A target named by its id in the path parameter `name`. */
const byId =
  (kind: 'flag' | 'segment' | 'change-request' | 'api-key', name: string) =>
  (request: FastifyRequest): AccessTarget => ({ kind, id: param(request, name) ?? '' });
const FLAG = byId('flag', 'flagId');
const SEGMENT = byId('segment', 'segmentId');
const CHANGE_REQUEST = byId('change-request', 'requestId');
const API_KEY = byId('api-key', 'keyId');
/** Evaluation: `?project=` (organisation-wide keys must send it), else the key's own project. */
const EVALUATED_PROJECT = (request: FastifyRequest): AccessTarget => ({
  kind: 'project',
  idOrKey: query(request, 'project'),
  evaluation: true,
});

/** The change reaches every environment: creating or deleting flags, environments, segments, projects. */
const ALL = (): EnvironmentScope => 'all';
const PATH_ENVIRONMENT = (request: FastifyRequest): EnvironmentScope => {
  const environment = param(request, 'envKey');
  return environment === undefined ? undefined : [environment];
};
const QUERY_ENVIRONMENT = (request: FastifyRequest): EnvironmentScope => [
  query(request, 'environment') ?? DEFAULT_ENVIRONMENT,
];

/** `{ environment? }` of the evaluation bodies, default production. */
function bodyEnvironment(principal: Principal, body: unknown): void {
  const environment = isPlainObject(body) ? (body.environment ?? DEFAULT_ENVIRONMENT) : DEFAULT_ENVIRONMENT;
  if (typeof environment === 'string') authorizeEnvironments(principal, [environment]);
}

/** The environments a flag patch reaches (patchReach, shared with the flag service). */
function patchEnvironments(principal: Principal, patch: unknown, environment: string): void {
  authorizeEnvironments(principal, accessScope(patchReach(patch, environment)));
}

function flagPatchEnvironments(principal: Principal, body: unknown, request: FastifyRequest): void {
  patchEnvironments(principal, body, query(request, 'environment') ?? DEFAULT_ENVIRONMENT);
}

/** A scheduled change `{ environment, patch }` reaches what its patch would reach now. */
function scheduledPatchEnvironments(principal: Principal, body: unknown): void {
  if (!isPlainObject(body)) return;
  const environment = typeof body.environment === 'string' ? body.environment : DEFAULT_ENVIRONMENT;
  patchEnvironments(principal, body.patch, environment);
}

/** A key cannot create a key with a higher role or wider environments than its own. */
function newKeyPower(principal: Principal, body: unknown): void {
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
 * Every /v1 route and who may call it: `METHOD /v1/path` as registered. A route may instead
 * declare `config: { access }` itself (OFREP does); the authorisation matrix test fails on a
 * route with neither.
 */
export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  'GET /v1/projects': { role: 'viewer', target: ANY },
  'POST /v1/projects': { role: 'admin', target: ORGANISATION, environments: ALL },
  'GET /v1/projects/:projectId': { role: 'viewer', target: PROJECT },
  'PATCH /v1/projects/:projectId': { role: 'admin', target: PROJECT },
  'DELETE /v1/projects/:projectId': { role: 'admin', target: ORGANISATION, environments: ALL },

  'GET /v1/projects/:projectId/environments': { role: 'viewer', target: PROJECT },
  'POST /v1/projects/:projectId/environments': { role: 'editor', target: PROJECT, environments: ALL },
  'GET /v1/projects/:projectId/environments/:envKey': { role: 'viewer', target: PROJECT },
  'PATCH /v1/projects/:projectId/environments/:envKey': {
    role: 'editor',
    target: PROJECT,
    // Changing `protected` or `requiredApprovals` is an admin's: the use case compares them with the stored ones.
    environments: PATH_ENVIRONMENT,
  },
  // Deleting an environment is governance: it takes its approvals and protection with it.
  'DELETE /v1/projects/:projectId/environments/:envKey': {
    role: 'admin',
    target: PROJECT,
    environments: ALL,
  },

  'GET /v1/projects/:projectId/flags': { role: 'viewer', target: PROJECT },
  'POST /v1/projects/:projectId/flags': { role: 'editor', target: PROJECT, environments: ALL },
  'GET /v1/projects/:projectId/flags/:flagKey': { role: 'viewer', target: PROJECT },
  'PATCH /v1/flags/:flagId': { role: 'editor', target: FLAG, body: flagPatchEnvironments },
  'DELETE /v1/flags/:flagId': { role: 'editor', target: FLAG, environments: ALL },
  'PATCH /v1/projects/:projectId/flags/:flagKey': {
    role: 'editor',
    target: PROJECT,
    body: flagPatchEnvironments,
  },
  'DELETE /v1/projects/:projectId/flags/:flagKey': { role: 'editor', target: PROJECT, environments: ALL },
  'POST /v1/flags/:flagId/restore': { role: 'editor', target: FLAG, environments: ALL },
  'GET /v1/flags/:flagId/dependants': { role: 'viewer', target: FLAG },
  'POST /v1/flags/:flagId/scheduled-changes': {
    role: 'editor',
    target: FLAG,
    body: scheduledPatchEnvironments,
  },
  'GET /v1/flags/:flagId/scheduled-changes': { role: 'viewer', target: FLAG },
  'GET /v1/flags/:flagId/scheduled-changes/:changeId': { role: 'viewer', target: FLAG },
  // Which environments a cancel reaches is the stored change's: the use case checks them.
  'DELETE /v1/flags/:flagId/scheduled-changes/:changeId': { role: 'editor', target: FLAG },
  'GET /v1/projects/:projectId/change-requests': { role: 'viewer', target: PROJECT },
  'GET /v1/change-requests/:requestId': { role: 'viewer', target: CHANGE_REQUEST },
  // Deciding needs editor rights over the environments the stored request changes: the use case checks them.
  'POST /v1/change-requests/:requestId/approve': { role: 'editor', target: CHANGE_REQUEST },
  'POST /v1/change-requests/:requestId/reject': { role: 'editor', target: CHANGE_REQUEST },
  'POST /v1/change-requests/:requestId/apply': { role: 'editor', target: CHANGE_REQUEST },
  'POST /v1/change-requests/:requestId/withdraw': { role: 'editor', target: CHANGE_REQUEST },

  'GET /v1/projects/:projectId/segments': { role: 'viewer', target: PROJECT },
  // A segment is shared by every environment's rules: changing it changes them all.
  'POST /v1/projects/:projectId/segments': { role: 'editor', target: PROJECT, environments: ALL },
  'GET /v1/projects/:projectId/segments/:segmentKey': { role: 'viewer', target: PROJECT },
  'GET /v1/segments/:segmentId': { role: 'viewer', target: SEGMENT },
  'GET /v1/segments/:segmentId/used-by': { role: 'viewer', target: SEGMENT },
  'PATCH /v1/segments/:segmentId': { role: 'editor', target: SEGMENT, environments: ALL },
  'POST /v1/segments/:segmentId/restore': { role: 'editor', target: SEGMENT, environments: ALL },
  'DELETE /v1/segments/:segmentId': { role: 'editor', target: SEGMENT, environments: ALL },

  'GET /v1/projects/:projectId/api-keys': { role: 'admin', target: PROJECT },
  'POST /v1/projects/:projectId/api-keys': { role: 'admin', target: PROJECT, body: newKeyPower },
  'GET /v1/api-keys': { role: 'admin', target: ORGANISATION },
  'POST /v1/api-keys': { role: 'admin', target: ORGANISATION, body: newKeyPower },
  'GET /v1/api-keys/:keyId/flagd-sync': { role: 'admin', target: API_KEY },
  'DELETE /v1/api-keys/:keyId': { role: 'admin', target: API_KEY },

  'GET /v1/projects/:projectId/audit-log': { role: 'admin', target: PROJECT },

  'GET /v1/projects/:projectId/webhooks': { role: 'admin', target: PROJECT },
  'POST /v1/projects/:projectId/webhooks': { role: 'admin', target: PROJECT },
  'GET /v1/projects/:projectId/webhooks/:webhookId': { role: 'admin', target: PROJECT },
  'PATCH /v1/projects/:projectId/webhooks/:webhookId': { role: 'admin', target: PROJECT },
  'DELETE /v1/projects/:projectId/webhooks/:webhookId': { role: 'admin', target: PROJECT },
  'GET /v1/projects/:projectId/webhooks/:webhookId/deliveries': { role: 'admin', target: PROJECT },
  'POST /v1/projects/:projectId/webhooks/:webhookId/deliveries/:deliveryId/redeliver': {
    role: 'admin',
    target: PROJECT,
  },
  'GET /v1/audit-log': { role: 'admin', target: ORGANISATION },

  'POST /v1/projects/:projectId/flags/:flagKey/explain': {
    role: 'viewer',
    target: PROJECT,
    body: bodyEnvironment,
  },
  'POST /v1/projects/:projectId/environments/:envKey/flagd': {
    role: 'editor',
    target: PROJECT,
    environments: PATH_ENVIRONMENT,
  },
  'GET /v1/projects/:projectId/environments/:envKey/flagd': {
    role: 'viewer',
    target: PROJECT,
    environments: PATH_ENVIRONMENT,
  },

  'GET /v1/flags/:flagId/insights': { role: 'viewer', target: FLAG },
  'GET /v1/projects/:projectId/insights/top-flags': { role: 'viewer', target: PROJECT },

  // Who is asking: anyone authenticated.
  'GET /v1/me': { role: 'evaluator', target: ANY },
  // One's own password: signed-in people only, whatever their role.
  'POST /v1/me/password': { role: 'evaluator', target: OWN_ACCOUNT },
  // Accounts and invitations: admins; the use case narrows a project admin to its project's.
  'GET /v1/accounts': { role: 'admin', target: ANY },
  'DELETE /v1/accounts/:accountId': { role: 'admin', target: ANY },
  // Changing an account's rights or handing out a way into it reaches every environment it sees.
  'PATCH /v1/accounts/:accountId': { role: 'admin', target: ANY, environments: ALL },
  'POST /v1/accounts/:accountId/password-reset': { role: 'admin', target: ANY, environments: ALL },
  'GET /v1/invitations': { role: 'admin', target: ANY },
  'POST /v1/invitations': { role: 'admin', target: ANY },
  'DELETE /v1/invitations/:invitationId': { role: 'admin', target: ANY },

  'GET /v1/flags/:flagKey': {
    role: 'evaluator',
    target: EVALUATED_PROJECT,
    environments: QUERY_ENVIRONMENT,
    rateLimit: 'evaluation',
  },
  'POST /v1/flags/:flagKey/evaluate': {
    role: 'evaluator',
    target: EVALUATED_PROJECT,
    body: bodyEnvironment,
    rateLimit: 'evaluation',
  },
  'POST /v1/evaluate': {
    role: 'evaluator',
    target: EVALUATED_PROJECT,
    body: bodyEnvironment,
    rateLimit: 'evaluation',
  },
};
