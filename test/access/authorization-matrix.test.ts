import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_ACCOUNT } from '../../src/domain/account.ts';
import { EDGE_ROLE, KEY_ROLES, type Role, roleRank } from '../../src/domain/api-key.ts';
import { buildUnreachableWebhook } from '../support/builders.ts';
import { describeEachDatabase } from '../support/database.ts';
import { createKey, type Harness, setupActor, startHarness } from './support.ts';

/**
 * docs/product.md §2 (roles) and §5 (403 before 400) for every /v1 route: each route is called, with a
 * request valid in every other way, by a key of every role × project scope × environment
 * scope, and must answer exactly the status this table says. Where the request can be made
 * invalid, it is sent again invalid: a key without access still gets 403, others 400.
 */

/** Which environments a route's request touches: none in particular, production, or every one. */
type Touches = 'none' | 'production' | 'all';

interface Request {
  readonly url: string;
  readonly body?: unknown;
  /** Routes that take their project and environment as OFREP does (POST /v1/events). */
  readonly headers?: Record<string, string>;
}

interface Context {
  readonly node: Harness;
  readonly flagId: string;
  readonly segmentId: string;
  readonly alphaId: string;
  readonly next: () => number;
}

interface RouteAccess {
  readonly minRole: Role;
  /** project: acts in project alpha; organisation: organisation-wide keys only; any: no project in particular. */
  readonly scope: 'project' | 'organisation' | 'any';
  readonly touches: Touches;
}

interface RouteCase {
  /** `METHOD /v1/path` as registered. */
  readonly route: string;
  /** Who may call it, as the route declares it with `access(role, TARGET, …)`. */
  readonly access: RouteAccess;
  readonly success: number;
  /** A valid request; may create what it acts on (with full rights), fresh for each call. */
  readonly request: (ctx: Context) => Request | Promise<Request>;
  /** The same request made invalid (400 for a key with access). */
  readonly invalid?: (request: Request) => Request;
  /** Names its resource by id alone: another project's is answered as an unknown one (404; decision 0020). */
  readonly byId?: true;
  /** Its environment is the stored resource's, known once found: another project's answers 404 first. */
  readonly environmentOfResource?: true;
  /** For signed-in people only (their own password): every API key gets 403. */
  readonly signedInOnly?: true;
}

/** A fresh webhook of project alpha, at a public address (nothing is delivered in this test). */
const webhook = (c: Context) =>
  c.node.services.webhooks.create(setupActor, 'alpha', { url: 'https://203.0.113.10/hook', events: ['*'] });

/** One webhook with one delivery, shared by the cases that only read or redeliver (creating one per cell is slow on PostgreSQL). */
const sharedWebhooks = new WeakMap<Harness, Promise<{ id: string; deliveryId: string }>>();
const sharedWebhook = (c: Context) => {
  let shared = sharedWebhooks.get(c.node);
  if (shared === undefined) {
    shared = (async () => {
      const hook = await webhook(c);
      await c.node.services.flags.create(setupActor, 'alpha', { key: `hooked-${c.next()}` });
      const page = await c.node.services.webhooks.deliveries(setupActor, 'alpha', hook.id, { limit: 1 });
      return { id: hook.id, deliveryId: page.items[0]?.id ?? '' };
    })();
    sharedWebhooks.set(c.node, shared);
  }
  return shared;
};

/** One metric of alpha shared by the cases that read or patch it (a fresh one per cell is slow on PostgreSQL). */
const sharedMetrics = new WeakMap<Harness, Promise<string>>();
const sharedMetric = (c: Context) => {
  let key = sharedMetrics.get(c.node);
  if (key === undefined) {
    key = c.node.services.metrics
      .create(setupActor, 'alpha', { key: 'shared-metric', event: 'purchase', kind: 'count' })
      .then((metric) => metric.key);
    sharedMetrics.set(c.node, key);
  }
  return key;
};

/** A draft experiment of alpha's production on a flag of its own, made with full rights; `started` starts it. */
async function freshExperiment(c: Context, started = false): Promise<string> {
  const flag = await c.node.services.flags.create(setupActor, 'alpha', { key: `measured-${c.next()}` });
  const experiment = await c.node.services.experiments.create(setupActor, 'alpha', {
    key: `exp-${c.next()}`,
    flag: flag.key,
    environment: 'production',
    control: 'off',
    treatments: ['on'],
    metrics: { primary: await sharedMetric(c) },
  });
  if (started) await c.node.services.experiments.start(setupActor, 'alpha', experiment.key);
  return experiment.key;
}

/** One draft experiment shared by the cases that read or patch it. */
const sharedExperiments = new WeakMap<Harness, Promise<string>>();
const sharedExperiment = (c: Context) => {
  let key = sharedExperiments.get(c.node);
  if (key === undefined) {
    key = freshExperiment(c);
    sharedExperiments.set(c.node, key);
  }
  return key;
};

/**
 * A webhook whose address this node refuses to reach (loopback, stored as if registered where
 * private addresses are allowed): a test event to it is answered at once, without a connection.
 */
const unreachableWebhooks = new WeakMap<Harness, Promise<string>>();
const unreachableWebhook = (c: Context) => {
  let id = unreachableWebhooks.get(c.node);
  if (id === undefined) {
    const stored = buildUnreachableWebhook(`whk_unreachable${c.next()}`, c.alphaId, ['flag.*']);
    id = c.node.store.webhooks.insertWebhook(stored).then(() => stored.id);
    unreachableWebhooks.set(c.node, id);
  }
  return id;
};

/** Fresh resources of alpha, made with full rights, for the calls that delete them. */
const fresh = {
  flag: (c: Context) => c.node.services.flags.create(setupActor, 'alpha', { key: `gone-${c.next()}` }),
  segment: (c: Context) => c.node.services.segments.create(setupActor, 'alpha', { key: `gone-${c.next()}` }),
  environment: (c: Context) =>
    c.node.services.environments.create(setupActor, 'alpha', { key: `gone-${c.next()}` }),
  metric: (c: Context) =>
    c.node.services.metrics.create(setupActor, 'alpha', {
      key: `metric-${c.next()}`,
      event: 'purchase',
      kind: 'count',
    }),
  /** An evaluator of alpha's production: acting on it takes that much power. */
  evaluatorKey: (c: Context) => createKey(c.node.services, c.alphaId, 'evaluator', ['production']),
};

/** A fresh flag of alpha with a release plan in production, brought to `status` with full rights. */
async function freshPlan(c: Context, status: 'draft' | 'running' | 'paused'): Promise<string> {
  const key = `released-${c.next()}`;
  await c.node.services.flags.create(setupActor, 'alpha', { key });
  const releases = c.node.services.releases;
  await releases.create(setupActor, 'alpha', key, 'production', {
    control: 'off',
    treatment: 'on',
    milestones: [
      { name: 'tenth', rollout: 10, hold: '1d' },
      { name: 'all', rollout: 100, hold: 'until-proceeded' },
    ],
  });
  if (status !== 'draft') await releases.start(setupActor, 'alpha', key, 'production');
  if (status === 'paused') await releases.pause(setupActor, 'alpha', key, 'production');
  return key;
}

const planUrl = (key: string, move = '') =>
  `/v1/projects/alpha/flags/${key}/environments/production/release-plan${move}`;

/** One release template of alpha shared by the cases that read or patch it. */
const sharedTemplates = new WeakMap<Harness, Promise<string>>();
const sharedTemplate = (c: Context) => {
  let key = sharedTemplates.get(c.node);
  if (key === undefined) {
    key = c.node.services.releaseTemplates
      .create(setupActor, 'alpha', {
        key: 'shared-template',
        milestones: [{ name: 'all', rollout: 100, hold: '1h' }],
      })
      .then((template) => template.key);
    sharedTemplates.set(c.node, key);
  }
  return key;
};

const TEMPLATE_BODY = { milestones: [{ name: 'all', rollout: 100, hold: '1h' }] };

const unknownField = (r: Request): Request => ({ ...r, body: { ...(r.body as object), bogus: true } });
const badLimit = (r: Request): Request => ({ url: `${r.url}${r.url.includes('?') ? '&' : '?'}limit=0` });

/** A fresh pending change of production for the flag, scheduled with full rights. */
async function scheduleOne(c: Context): Promise<string> {
  const change = await c.node.services.scheduledChanges.schedule(setupActor, c.flagId, {
    at: '2999-01-01T00:00:00Z',
    environment: 'production',
    patch: { enabled: c.next() % 2 === 0 },
  });
  if (!('applied' in change)) throw new Error('A full-rights schedule is not a change request.');
  return change.applied.id;
}

/** An open change request of production for the flag, by someone no test key is; `approved` already has its one approval. */
async function openRequest(c: Context, approved = false): Promise<string> {
  const flag = await c.node.store.findFlagById(c.flagId);
  const enabled = flag?.environments.production?.enabled ?? false;
  const someone = { type: 'user' as const, id: `someone-${c.next()}`, name: 'Someone' };
  const at = new Date().toISOString();
  const id = `chr_matrix${c.next()}`;
  await c.node.store.pendingChanges.insert('request', {
    id,
    projectId: flag?.projectId as string,
    flagId: c.flagId,
    segmentId: null,
    environment: 'production',
    environments: ['production'],
    kind: 'flag.patch',
    patch: { enabled: !enabled },
    // Production's switch, the other way from how it is now: deciding it needs rights over production.
    changes: [{ path: '/environments/production/enabled', before: enabled, after: !enabled }],
    conflict: null,
    comment: '',
    baseVersion: flag?.version as number,
    requiredApprovals: 1,
    author: someone,
    status: 'open',
    approvals: approved ? [{ by: { ...someone, id: `${someone.id}-b` }, at, comment: '' }] : [],
    decidedBy: null,
    failure: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
  });
  return id;
}

/** A fresh viewer account of project alpha, stored directly: joining hashes a password, too slow for 36 cells. */
async function alphaAccount(c: Context): Promise<string> {
  const id = `acc_member${c.next()}`;
  await c.node.store.insertAccount({
    id,
    email: `${id}@example.com`,
    name: 'Member',
    passwordHash: 'not a usable hash',
    role: 'viewer',
    projectId: c.alphaId,
    createdAt: new Date().toISOString(),
    lastLoginAt: null,
    version: 1,
    ...LOCAL_ACCOUNT,
  });
  return id;
}

const CASES: readonly RouteCase[] = [
  {
    route: 'GET /v1/projects',
    access: { minRole: 'viewer', scope: 'any', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects' }),
    invalid: badLimit,
  },
  {
    route: 'POST /v1/projects',
    access: { minRole: 'admin', scope: 'organisation', touches: 'all' },
    success: 201,
    request: (c) => ({ url: '/v1/projects', body: { key: `made-${c.next()}` } }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha' }),
  },
  {
    route: 'PATCH /v1/projects/:projectId',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 200,
    request: (c) => ({ url: '/v1/projects/alpha', body: { description: `changed ${c.next()}` } }),
    invalid: unknownField,
  },
  {
    route: 'DELETE /v1/projects/:projectId',
    access: { minRole: 'admin', scope: 'organisation', touches: 'all' },
    success: 204,
    request: async (c) => {
      const project = await c.node.services.projects.create(setupActor, { key: `doomed-${c.next()}` });
      return { url: `/v1/projects/${project.key}` };
    },
  },
  {
    route: 'GET /v1/projects/:projectId/environments',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/environments' }),
  },
  {
    route: 'POST /v1/projects/:projectId/environments',
    access: { minRole: 'editor', scope: 'project', touches: 'all' },
    success: 201,
    request: (c) => ({ url: '/v1/projects/alpha/environments', body: { key: `env-${c.next()}` } }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId/environments/:envKey',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/environments/production' }),
    invalid: () => ({ url: '/v1/projects/alpha/environments/-not-a-key' }),
  },
  {
    route: 'PATCH /v1/projects/:projectId/environments/:envKey',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: (c) => ({
      url: '/v1/projects/alpha/environments/production',
      body: { description: `changed ${c.next()}` },
    }),
    invalid: unknownField,
  },
  {
    route: 'DELETE /v1/projects/:projectId/environments/:envKey',
    // Governance: an environment takes its approvals and protection with it (decision 1700).
    access: { minRole: 'admin', scope: 'project', touches: 'all' },
    success: 204,
    request: async (c) => ({ url: `/v1/projects/alpha/environments/${(await fresh.environment(c)).key}` }),
  },
  {
    route: 'GET /v1/projects/:projectId/flags',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/flags?environment=production' }),
    invalid: badLimit,
  },
  {
    route: 'GET /v1/projects/:projectId/flag-tags',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/flag-tags' }),
  },
  {
    route: 'POST /v1/projects/:projectId/flags',
    access: { minRole: 'editor', scope: 'project', touches: 'all' },
    success: 201,
    request: (c) => ({ url: '/v1/projects/alpha/flags', body: { key: `flag-${c.next()}` } }),
    invalid: unknownField,
  },
  {
    route: 'POST /v1/projects/:projectId/flag-batches',
    // Each flag's writes are checked as their single routes check them, and refused flag by flag (decision 1960).
    access: { minRole: 'editor', scope: 'project', touches: 'none' },
    success: 200,
    request: (c) => ({
      url: '/v1/projects/alpha/flag-batches',
      body: { flags: [{ flag: `batched-${c.next()}`, writes: [{ create: {} }] }] },
    }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId/flags/:flagKey',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/flags/checkout' }),
    invalid: () => ({ url: '/v1/projects/alpha/flags/-not-a-key' }),
  },
  {
    route: 'PATCH /v1/flags/:flagId',
    byId: true,
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: (c) => ({
      url: `/v1/flags/${c.flagId}?environment=production`,
      body: { enabled: c.next() % 2 === 0 },
    }),
    invalid: unknownField,
  },
  {
    route: 'DELETE /v1/flags/:flagId',
    byId: true,
    access: { minRole: 'editor', scope: 'project', touches: 'all' },
    success: 204,
    request: async (c) => ({ url: `/v1/flags/${(await fresh.flag(c)).id}` }),
  },
  {
    route: 'PATCH /v1/projects/:projectId/flags/:flagKey',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: (c) => ({
      url: '/v1/projects/alpha/flags/checkout?environment=production',
      body: { enabled: c.next() % 2 === 0 },
    }),
    invalid: unknownField,
  },
  {
    route: 'DELETE /v1/projects/:projectId/flags/:flagKey',
    access: { minRole: 'editor', scope: 'project', touches: 'all' },
    success: 204,
    request: async (c) => ({ url: `/v1/projects/alpha/flags/${(await fresh.flag(c)).key}` }),
  },
  {
    route: 'POST /v1/flags/:flagId/restore',
    byId: true,
    access: { minRole: 'editor', scope: 'project', touches: 'all' },
    success: 200,
    request: (c) => ({ url: `/v1/flags/${c.flagId}/restore`, body: { version: 1 } }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/flags/:flagId/dependants',
    byId: true,
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: (c) => ({ url: `/v1/flags/${c.flagId}/dependants` }),
  },
  {
    route: 'GET /v1/flags/:flagId/history',
    byId: true,
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: (c) => ({ url: `/v1/flags/${c.flagId}/history?limit=5` }),
    invalid: badLimit,
  },
  {
    route: 'POST /v1/flags/:flagId/scheduled-changes',
    byId: true,
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 201,
    request: (c) => ({
      url: `/v1/flags/${c.flagId}/scheduled-changes`,
      body: { at: '2999-01-01T00:00:00Z', environment: 'production', patch: { enabled: c.next() % 2 === 0 } },
    }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/flags/:flagId/scheduled-changes',
    byId: true,
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: (c) => ({ url: `/v1/flags/${c.flagId}/scheduled-changes` }),
    invalid: (r) => ({ url: `${r.url}?status=bogus` }),
  },
  {
    route: 'GET /v1/flags/:flagId/scheduled-changes/:changeId',
    byId: true,
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({ url: `/v1/flags/${c.flagId}/scheduled-changes/${await scheduleOne(c)}` }),
  },
  {
    route: 'DELETE /v1/flags/:flagId/scheduled-changes/:changeId',
    byId: true,
    environmentOfResource: true,
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 204,
    request: async (c) => ({ url: `/v1/flags/${c.flagId}/scheduled-changes/${await scheduleOne(c)}` }),
  },
  {
    route: 'POST /v1/projects/:projectId/flags/:flagKey/scheduled-changes',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 201,
    request: (c) => ({
      url: '/v1/projects/alpha/flags/checkout/scheduled-changes',
      body: { at: '2999-01-01T00:00:00Z', environment: 'production', patch: { enabled: c.next() % 2 === 0 } },
    }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId/flags/:flagKey/scheduled-changes',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/flags/checkout/scheduled-changes' }),
    invalid: (r) => ({ url: `${r.url}?status=bogus` }),
  },
  {
    route: 'GET /v1/projects/:projectId/flags/:flagKey/scheduled-changes/:changeId',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({
      url: `/v1/projects/alpha/flags/checkout/scheduled-changes/${await scheduleOne(c)}`,
    }),
  },
  {
    route: 'DELETE /v1/projects/:projectId/flags/:flagKey/scheduled-changes/:changeId',
    environmentOfResource: true,
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 204,
    request: async (c) => ({
      url: `/v1/projects/alpha/flags/checkout/scheduled-changes/${await scheduleOne(c)}`,
    }),
  },
  {
    route: 'GET /v1/projects/:projectId/change-requests',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/change-requests?status=open' }),
    invalid: badLimit,
  },
  {
    route: 'GET /v1/change-requests/:requestId',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({ url: `/v1/change-requests/${await openRequest(c)}` }),
  },
  {
    route: 'POST /v1/change-requests/:requestId/approve',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    // No invalid case: the environments a decision reaches are the stored request's, checked by the
    // use case after validation, so a key limited to other environments would see 400 before 403.
    request: async (c) => ({ url: `/v1/change-requests/${await openRequest(c)}/approve`, body: {} }),
  },
  {
    route: 'POST /v1/change-requests/:requestId/reject',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: `/v1/change-requests/${await openRequest(c)}/reject` }),
  },
  {
    route: 'POST /v1/change-requests/:requestId/apply',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: `/v1/change-requests/${await openRequest(c, true)}/apply` }),
  },
  {
    // The author may withdraw too; no test key is the author, so only admins may.
    route: 'POST /v1/change-requests/:requestId/withdraw',
    access: { minRole: 'admin', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: `/v1/change-requests/${await openRequest(c)}/withdraw` }),
  },
  {
    route: 'GET /v1/projects/:projectId/segments',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/segments' }),
    invalid: badLimit,
  },
  {
    route: 'POST /v1/projects/:projectId/segments',
    access: { minRole: 'editor', scope: 'project', touches: 'all' },
    success: 201,
    request: (c) => ({ url: '/v1/projects/alpha/segments', body: { key: `seg-${c.next()}` } }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId/segments/:segmentKey',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/segments/beta-users' }),
  },
  {
    route: 'GET /v1/segments/:segmentId',
    byId: true,
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: (c) => ({ url: `/v1/segments/${c.segmentId}` }),
  },
  {
    route: 'GET /v1/segments/:segmentId/used-by',
    byId: true,
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: (c) => ({ url: `/v1/segments/${c.segmentId}/used-by` }),
  },
  {
    route: 'PATCH /v1/segments/:segmentId',
    byId: true,
    access: { minRole: 'editor', scope: 'project', touches: 'all' },
    success: 200,
    request: (c) => ({ url: `/v1/segments/${c.segmentId}`, body: { description: `changed ${c.next()}` } }),
    invalid: unknownField,
  },
  {
    route: 'POST /v1/segments/:segmentId/restore',
    byId: true,
    access: { minRole: 'editor', scope: 'project', touches: 'all' },
    success: 200,
    request: (c) => ({ url: `/v1/segments/${c.segmentId}/restore`, body: { version: 1 } }),
    invalid: unknownField,
  },
  {
    route: 'DELETE /v1/segments/:segmentId',
    byId: true,
    access: { minRole: 'editor', scope: 'project', touches: 'all' },
    success: 204,
    request: async (c) => ({ url: `/v1/segments/${(await fresh.segment(c)).id}` }),
  },
  {
    route: 'GET /v1/projects/:projectId/api-keys',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/api-keys' }),
    invalid: badLimit,
  },
  {
    route: 'POST /v1/projects/:projectId/api-keys',
    access: { minRole: 'admin', scope: 'project', touches: 'production' },
    success: 201,
    request: (c) => ({
      url: '/v1/projects/alpha/api-keys',
      body: { name: `made ${c.next()}`, role: 'evaluator', environments: ['production'] },
    }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/api-keys',
    access: { minRole: 'admin', scope: 'organisation', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/api-keys' }),
    invalid: badLimit,
  },
  {
    route: 'POST /v1/api-keys',
    access: { minRole: 'admin', scope: 'organisation', touches: 'production' },
    success: 201,
    request: (c) => ({
      url: '/v1/api-keys',
      body: { name: `made ${c.next()}`, role: 'evaluator', environments: ['production'] },
    }),
    invalid: unknownField,
  },
  {
    // The selectors of an evaluator of alpha's production: reading them takes that much power.
    route: 'GET /v1/api-keys/:keyId/flagd-sync',
    access: { minRole: 'admin', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: `/v1/api-keys/${(await fresh.evaluatorKey(c)).id}/flagd-sync` }),
  },
  {
    // The key revoked is an evaluator of alpha's production: revoking it takes that much power.
    route: 'DELETE /v1/api-keys/:keyId',
    access: { minRole: 'admin', scope: 'project', touches: 'production' },
    success: 204,
    request: async (c) => ({ url: `/v1/api-keys/${(await fresh.evaluatorKey(c)).id}` }),
  },
  {
    route: 'GET /v1/projects/:projectId/audit-log',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/audit-log?limit=5' }),
    invalid: badLimit,
  },
  {
    route: 'GET /v1/projects/:projectId/webhooks',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/webhooks' }),
  },
  {
    route: 'POST /v1/projects/:projectId/webhooks',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 201,
    request: () => ({
      url: '/v1/projects/alpha/webhooks',
      body: { url: 'https://203.0.113.10/hook', events: ['flag.*'] },
    }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId/webhooks/:webhookId',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({ url: `/v1/projects/alpha/webhooks/${(await sharedWebhook(c)).id}` }),
  },
  {
    route: 'PATCH /v1/projects/:projectId/webhooks/:webhookId',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({
      url: `/v1/projects/alpha/webhooks/${(await webhook(c)).id}`,
      body: { active: false },
    }),
    invalid: unknownField,
  },
  {
    route: 'DELETE /v1/projects/:projectId/webhooks/:webhookId',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 204,
    request: async (c) => ({ url: `/v1/projects/alpha/webhooks/${(await webhook(c)).id}` }),
  },
  {
    route: 'GET /v1/projects/:projectId/webhooks/:webhookId/deliveries',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({ url: `/v1/projects/alpha/webhooks/${(await sharedWebhook(c)).id}/deliveries` }),
    invalid: badLimit,
  },
  {
    route: 'POST /v1/projects/:projectId/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 202,
    request: async (c) => {
      const hook = await sharedWebhook(c);
      return { url: `/v1/projects/alpha/webhooks/${hook.id}/deliveries/${hook.deliveryId}/redeliver` };
    },
  },
  {
    route: 'POST /v1/projects/:projectId/webhooks/:webhookId/test',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({ url: `/v1/projects/alpha/webhooks/${await unreachableWebhook(c)}/test` }),
  },
  {
    route: 'POST /v1/projects/:projectId/explain',
    access: { minRole: 'viewer', scope: 'project', touches: 'production' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/explain', body: { attributes: { targetingKey: 'u1' } } }),
    invalid: unknownField,
  },
  {
    route: 'POST /v1/projects/:projectId/flags/:flagKey/explain',
    access: { minRole: 'viewer', scope: 'project', touches: 'production' },
    success: 200,
    request: () => ({
      url: '/v1/projects/alpha/flags/checkout/explain',
      body: { attributes: { plan: 'pro' } },
    }),
    invalid: unknownField,
  },
  {
    route: 'POST /v1/projects/:projectId/environments/:envKey/flagd',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: () => ({
      url: '/v1/projects/alpha/environments/production/flagd',
      body: {
        flags: { checkout: { state: 'ENABLED', variants: { on: true, off: false }, defaultVariant: 'on' } },
      },
    }),
    invalid: (r) => ({ ...r, body: { flags: 'not flags' } }),
  },
  {
    route: 'GET /v1/projects/:projectId/environments/:envKey/flagd',
    access: { minRole: 'viewer', scope: 'project', touches: 'production' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/environments/production/flagd' }),
  },
  {
    route: 'GET /v1/flags/:flagId/insights',
    byId: true,
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: (c) => ({ url: `/v1/flags/${c.flagId}/insights` }),
    invalid: (r) => ({ url: `${r.url}?environment=-not-a-key` }),
  },
  {
    route: 'GET /v1/projects/:projectId/insights/top-flags',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/insights/top-flags' }),
    invalid: (r) => ({ url: `${r.url}?environment=-not-a-key` }),
  },
  {
    route: 'GET /v1/me',
    access: { minRole: 'evaluator', scope: 'any', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/me' }),
  },
  {
    route: 'POST /v1/me/password',
    access: { minRole: 'evaluator', scope: 'any', touches: 'none' },
    success: 204,
    signedInOnly: true,
    request: () => ({
      url: '/v1/me/password',
      body: { currentPassword: 'whatever it is', newPassword: 'a long new password' },
    }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/accounts',
    access: { minRole: 'admin', scope: 'any', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/accounts' }),
    invalid: badLimit,
  },
  {
    route: 'GET /v1/invitations',
    access: { minRole: 'admin', scope: 'any', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/invitations' }),
    invalid: badLimit,
  },
  {
    route: 'POST /v1/invitations',
    // An admin limited to some environments may not hand out an account that sees them all.
    access: { minRole: 'admin', scope: 'project', touches: 'all' },
    success: 201,
    request: (c) => ({
      url: '/v1/invitations',
      body: { email: `p${c.next()}@example.com`, role: 'viewer', project: 'alpha' },
    }),
  },
  {
    route: 'DELETE /v1/invitations/:invitationId',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 204,
    request: async (c) => {
      const invitation = await c.node.services.accounts.invite(setupActor, {
        email: `gone${c.next()}@example.com`,
        role: 'viewer',
        project: 'alpha',
      });
      return { url: `/v1/invitations/${invitation.id}` };
    },
  },
  {
    route: 'DELETE /v1/accounts/:accountId',
    access: { minRole: 'admin', scope: 'project', touches: 'none' },
    success: 204,
    request: async (c) => ({ url: `/v1/accounts/${await alphaAccount(c)}` }),
  },
  {
    route: 'PATCH /v1/accounts/:accountId',
    // The account sees every environment: an admin limited to some may not hand that out.
    access: { minRole: 'admin', scope: 'project', touches: 'all' },
    success: 200,
    request: async (c) => ({ url: `/v1/accounts/${await alphaAccount(c)}`, body: { role: 'editor' } }),
  },
  {
    route: 'POST /v1/accounts/:accountId/password-reset',
    access: { minRole: 'admin', scope: 'project', touches: 'all' },
    success: 201,
    request: async (c) => ({ url: `/v1/accounts/${await alphaAccount(c)}/password-reset` }),
  },
  {
    route: 'GET /v1/audit-log',
    access: { minRole: 'admin', scope: 'organisation', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/audit-log?limit=5' }),
    invalid: badLimit,
  },
  {
    route: 'GET /v1/flags/:flagKey',
    access: { minRole: 'evaluator', scope: 'project', touches: 'production' },
    success: 200,
    request: () => ({ url: '/v1/flags/checkout?project=alpha&environment=production' }),
    invalid: (r) => ({ url: `${r.url}&attributes=${encodeURIComponent('[1,2]')}` }),
  },
  {
    route: 'POST /v1/flags/:flagKey/evaluate',
    access: { minRole: 'evaluator', scope: 'project', touches: 'production' },
    success: 200,
    request: () => ({
      url: '/v1/flags/checkout/evaluate?project=alpha',
      body: { environment: 'production', attributes: { targetingKey: 'u1' } },
    }),
    invalid: unknownField,
  },
  {
    route: 'POST /v1/evaluate',
    access: { minRole: 'evaluator', scope: 'project', touches: 'production' },
    success: 200,
    request: () => ({ url: '/v1/evaluate?project=alpha', body: { environment: 'production' } }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId/metrics',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/metrics' }),
    invalid: badLimit,
  },
  {
    route: 'POST /v1/projects/:projectId/metrics',
    access: { minRole: 'editor', scope: 'project', touches: 'none' },
    success: 201,
    request: (c) => ({
      url: '/v1/projects/alpha/metrics',
      body: { key: `made-${c.next()}`, event: 'purchase', kind: 'conversion' },
    }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId/metrics/:metricKey',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({ url: `/v1/projects/alpha/metrics/${await sharedMetric(c)}` }),
  },
  {
    route: 'PATCH /v1/projects/:projectId/metrics/:metricKey',
    access: { minRole: 'editor', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({
      url: `/v1/projects/alpha/metrics/${await sharedMetric(c)}`,
      body: { window: 1 + (c.next() % 100) },
    }),
    invalid: unknownField,
  },
  {
    route: 'DELETE /v1/projects/:projectId/metrics/:metricKey',
    access: { minRole: 'editor', scope: 'project', touches: 'none' },
    success: 204,
    request: async (c) => ({ url: `/v1/projects/alpha/metrics/${(await fresh.metric(c)).key}` }),
  },
  {
    route: 'GET /v1/projects/:projectId/experiments',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/experiments' }),
    invalid: badLimit,
  },
  {
    route: 'POST /v1/projects/:projectId/experiments',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 201,
    request: async (c) => ({
      url: '/v1/projects/alpha/experiments',
      body: {
        key: `made-${c.next()}`,
        flag: 'checkout',
        environment: 'production',
        control: 'off',
        treatments: ['on'],
        metrics: { primary: await sharedMetric(c) },
      },
    }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId/experiments/:experimentKey',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({ url: `/v1/projects/alpha/experiments/${await sharedExperiment(c)}` }),
  },
  {
    route: 'GET /v1/projects/:projectId/experiments/:experimentKey/results',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({ url: `/v1/projects/alpha/experiments/${await sharedExperiment(c)}/results` }),
  },
  {
    // The environment is the stored experiment's: a request invalid in its body is refused before it is read.
    route: 'PATCH /v1/projects/:projectId/experiments/:experimentKey',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({
      url: `/v1/projects/alpha/experiments/${await sharedExperiment(c)}`,
      body: { description: `take ${c.next()}` },
    }),
  },
  {
    route: 'DELETE /v1/projects/:projectId/experiments/:experimentKey',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 204,
    request: async (c) => ({ url: `/v1/projects/alpha/experiments/${await freshExperiment(c)}` }),
  },
  {
    route: 'POST /v1/projects/:projectId/experiments/:experimentKey/start',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: `/v1/projects/alpha/experiments/${await freshExperiment(c)}/start` }),
  },
  {
    route: 'POST /v1/projects/:projectId/experiments/:experimentKey/stop',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: `/v1/projects/alpha/experiments/${await freshExperiment(c, true)}/stop` }),
  },
  {
    // Edge keys only, asked for by name: every other role is refused (decision 1980).
    route: 'GET /v1/edge/stream',
    access: { minRole: EDGE_ROLE, scope: 'any', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/edge/stream?until=ready' }),
    invalid: (request) => ({ ...request, url: '/v1/edge/stream?until=never' }),
  },
  {
    route: 'POST /v1/edge/batches',
    access: { minRole: EDGE_ROLE, scope: 'project', touches: 'production' },
    success: 200,
    request: (c) => ({
      url: '/v1/edge/batches',
      body: {
        id: `batch-${c.next()}`,
        events: [],
        exposures: [],
        counts: [
          {
            projectId: c.alphaId,
            flagKey: 'checkout',
            environment: 'production',
            minute: 1,
            variant: 'on',
            reason: 'STATIC',
            count: 1,
          },
        ],
      },
    }),
    invalid: (request) => ({ ...request, body: { ...(request.body as object), id: '' } }),
  },
  {
    route: 'POST /v1/events',
    access: { minRole: 'evaluator', scope: 'project', touches: 'production' },
    success: 200,
    request: (c) => ({
      url: '/v1/events',
      headers: { 'x-flagstaff-project': 'alpha', 'x-flagstaff-environment': 'production' },
      body: { events: [{ name: 'checkout', context: { targetingKey: `u${c.next()}` } }] },
    }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId/release-templates',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/release-templates' }),
    invalid: badLimit,
  },
  {
    route: 'POST /v1/projects/:projectId/release-templates',
    access: { minRole: 'editor', scope: 'project', touches: 'none' },
    success: 201,
    request: (c) => ({
      url: '/v1/projects/alpha/release-templates',
      body: { key: `template-${c.next()}`, ...TEMPLATE_BODY },
    }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId/release-templates/:templateKey',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({ url: `/v1/projects/alpha/release-templates/${await sharedTemplate(c)}` }),
  },
  {
    route: 'PATCH /v1/projects/:projectId/release-templates/:templateKey',
    access: { minRole: 'editor', scope: 'project', touches: 'none' },
    success: 200,
    request: async (c) => ({
      url: `/v1/projects/alpha/release-templates/${await sharedTemplate(c)}`,
      body: { name: `Template ${c.next()}` },
    }),
    invalid: unknownField,
  },
  {
    route: 'DELETE /v1/projects/:projectId/release-templates/:templateKey',
    access: { minRole: 'editor', scope: 'project', touches: 'none' },
    success: 204,
    request: async (c) => {
      const made = await c.node.services.releaseTemplates.create(setupActor, 'alpha', {
        key: `gone-template-${c.next()}`,
        ...TEMPLATE_BODY,
      });
      return { url: `/v1/projects/alpha/release-templates/${made.key}` };
    },
  },
  {
    route: 'GET /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan',
    access: { minRole: 'viewer', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: planUrl(await freshPlan(c, 'draft')) }),
  },
  {
    route: 'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 201,
    request: async (c) => {
      const key = `planned-${c.next()}`;
      await c.node.services.flags.create(setupActor, 'alpha', { key });
      return { url: planUrl(key), body: { control: 'off', treatment: 'on', ...TEMPLATE_BODY } };
    },
    invalid: unknownField,
  },
  {
    route: 'DELETE /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 204,
    request: async (c) => ({ url: planUrl(await freshPlan(c, 'draft')) }),
  },
  {
    route: 'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan/start',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: planUrl(await freshPlan(c, 'draft'), '/start') }),
  },
  {
    route: 'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan/pause',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: planUrl(await freshPlan(c, 'running'), '/pause'), body: {} }),
    invalid: unknownField,
  },
  {
    route: 'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan/resume',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: planUrl(await freshPlan(c, 'paused'), '/resume') }),
  },
  {
    route: 'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan/proceed',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: planUrl(await freshPlan(c, 'running'), '/proceed') }),
  },
  {
    route: 'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan/rollback',
    access: { minRole: 'editor', scope: 'project', touches: 'production' },
    success: 200,
    request: async (c) => ({ url: planUrl(await freshPlan(c, 'running'), '/rollback'), body: {} }),
    invalid: unknownField,
  },
  {
    route: 'PUT /v1/projects/:projectId/code-references/:repository',
    access: { minRole: 'editor', scope: 'project', touches: 'none' },
    success: 200,
    request: (c) => ({
      url: `/v1/projects/alpha/code-references/repo-${c.next()}`,
      body: {
        branch: 'main',
        references: [{ flag: 'checkout', path: 'src/a.ts', line: 1, context: ['checkout'] }],
      },
    }),
    invalid: unknownField,
  },
  {
    route: 'GET /v1/projects/:projectId/code-references',
    access: { minRole: 'viewer', scope: 'project', touches: 'none' },
    success: 200,
    request: () => ({ url: '/v1/projects/alpha/code-references?flag=checkout' }),
  },
];

/** Every key of the matrix: role × bound to alpha / to beta / organisation-wide × all / production / development. */
interface Cell {
  readonly role: Role;
  readonly scope: 'own' | 'other' | 'organisation';
  readonly environments: readonly string[] | null;
  readonly label: string;
}

const CELLS: readonly Cell[] = KEY_ROLES.flatMap((role) =>
  (['own', 'other', 'organisation'] as const).flatMap((scope) =>
    [null, ['production'], ['development']].map((environments) => ({
      role,
      scope,
      environments,
      label: `${role} ${scope === 'own' ? 'alpha' : scope === 'other' ? 'beta' : 'organisation'} ${environments?.join('+') ?? 'all-envs'}`,
    })),
  ),
);

/** What docs/product.md §2 and §5 say the cell answers. */
function expected(route: RouteCase, cell: Cell): number {
  const { minRole, scope, touches } = route.access;
  if (route.signedInOnly) return 403;
  if (scope === 'organisation' && cell.scope !== 'organisation') return 403;
  const otherProject = scope === 'project' && cell.scope === 'other';
  if (otherProject && route.byId === undefined) return 403;
  if (otherProject && route.environmentOfResource && roleRank(cell.role) >= roleRank(minRole)) return 404;
  if (roleRank(cell.role) < roleRank(minRole)) return 403;
  // The edge routes ask for the edge role by name: no rung of the ladder reaches them (decision 1980).
  if (minRole === EDGE_ROLE && cell.role !== EDGE_ROLE) return 403;
  if (touches === 'all' && cell.environments !== null) return 403;
  if (touches === 'production' && cell.environments !== null && !cell.environments.includes('production')) {
    return 403;
  }
  if (otherProject) return 404;
  return route.success;
}

const cellsChecked = new Map<string, number>();

describeEachDatabase('authorisation matrix: every /v1 route × role × project × environment', (database) => {
  let node: Harness;
  let ctx: Context;
  const secrets = new Map<string, string>();

  beforeAll(async () => {
    node = await startHarness(database);
    const { services } = node;
    const alpha = await services.projects.create(setupActor, { key: 'alpha' });
    const beta = await services.projects.create(setupActor, { key: 'beta' });
    const flag = await services.flags.create(setupActor, 'alpha', { key: 'checkout' });
    const segment = await services.segments.create(setupActor, 'alpha', { key: 'beta-users' });
    for (const cell of CELLS) {
      const projectId = cell.scope === 'own' ? alpha.id : cell.scope === 'other' ? beta.id : null;
      secrets.set(cell.label, (await createKey(services, projectId, cell.role, cell.environments)).secret);
    }
    let counter = 0;
    ctx = { node, flagId: flag.id, segmentId: segment.id, alphaId: alpha.id, next: () => ++counter };
  });
  afterAll(() => node?.close());

  it('has a case for exactly the /v1 routes that declare who may call them', () => {
    const guarded = node.app.accessControl.routes.filter((r) => r.url.startsWith('/v1/'));
    const declared = guarded.filter((r) => r.access !== undefined).map((r) => `${r.method} ${r.url}`);
    expect([...declared].sort()).toEqual(CASES.map((c) => c.route).sort());
    // Every route says who may call it: one left to its use case would escape this table.
    const undeclared = guarded.filter((r) => r.access === undefined).map((r) => `${r.method} ${r.url}`);
    expect(undeclared).toEqual([]);
  });

  // A route's cells make their own resources first (a release plan's are a flag, a plan and its
  // start, twice a cell): on PostgreSQL under CI's load that takes longer than a request's test.
  const CELLS_TIMEOUT = 180_000;
  for (const route of CASES) {
    it(`${route.route}: ${route.access.minRole}+, ${route.access.scope}, touches ${route.access.touches}`, {
      timeout: CELLS_TIMEOUT,
    }, async () => {
      const [method] = route.route.split(' ') as [string];
      const want: Record<string, number> = {};
      const got: Record<string, number> = {};
      for (const cell of CELLS) {
        const key = secrets.get(cell.label) as string;
        const request = await route.request(ctx);
        const response = await node.call(method, request.url, {
          key,
          body: request.body,
          headers: request.headers ?? {},
        });
        want[cell.label] = expected(route, cell);
        got[cell.label] = response.status;
        if (response.status === 403) expect(response.body.code).toBe('forbidden');
        if (route.invalid !== undefined) {
          const invalid = route.invalid(await route.request(ctx));
          const refused = await node.call(method, invalid.url, {
            key,
            body: invalid.body,
            headers: invalid.headers ?? {},
          });
          want[`${cell.label} (invalid request)`] = expected(route, cell) === 403 ? 403 : 400;
          got[`${cell.label} (invalid request)`] = refused.status;
        }
      }
      expect(got).toEqual(want);
      cellsChecked.set(`${database.name} ${route.route}`, Object.keys(got).length);
    });
  }

  it('counts its cells', () => {
    const mine = [...cellsChecked].filter(([k]) => k.startsWith(`${database.name} `));
    const total = mine.reduce((sum, [, n]) => sum + n, 0);
    const valid = CASES.length * CELLS.length;
    const invalid = CASES.filter((c) => c.invalid !== undefined).length * CELLS.length;
    console.info(
      `${database.name}: ${CASES.length} routes × ${CELLS.length} keys = ${valid} cells, plus ${invalid} with an invalid request: ${total}`,
    );
    expect(total).toBe(valid + invalid);
  });
});
