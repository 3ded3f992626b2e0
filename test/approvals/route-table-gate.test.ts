import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_KEY, createKey, type Harness, startHarness } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';

/**
 * The gate cannot be walked around (docs/decisions/1700-one-gate.md): every write route the app
 * registers is either tried here by an editor against a production that requires approvals —
 * and must answer 202 (a change request) or 403 while production evaluates exactly as before —
 * or is on the list below of writes that cannot change what an environment evaluates. A new
 * write route on neither list fails the test, naming it.
 */

/** Write routes that cannot change what an existing environment evaluates, and why. */
const CANNOT_CHANGE_EVALUATION: Readonly<Record<string, string>> = {
  // New things: nothing that exists evaluates differently.
  'POST /v1/projects/:projectId/flags': 'a new flag is off in every environment; no existing flag changes',
  'POST /v1/projects/:projectId/segments': 'a new segment is used by no flag yet',
  'POST /v1/projects/:projectId/environments': 'a new environment; the existing ones are untouched',
  // Reads sent as POST (large contexts).
  'POST /v1/projects/:projectId/flags/:flagKey/explain': 'explains an evaluation; writes nothing',
  'POST /v1/projects/:projectId/explain': 'explains every flag for one user; writes nothing',
  'POST /v1/flags/:flagKey/evaluate': 'an evaluation; writes nothing',
  'POST /v1/evaluate': 'an evaluation; writes nothing',
  'POST /ofrep/v1/evaluate/flags': 'an OFREP evaluation; writes nothing',
  'POST /ofrep/v1/evaluate/flags/:key': 'an OFREP evaluation; writes nothing',
  // What applications report: measured, never served.
  'POST /v1/events': 'tracking events: what users did, read by experiments, never by evaluation',
  'POST /v1/edge/batches': 'what an edge forwards: events, exposures and counts, measured, never served',
  'POST /v1/projects/:projectId/metrics': 'metric definitions: what experiments measure, never served',
  'PATCH /v1/projects/:projectId/metrics/:metricKey':
    'metric definitions: what experiments measure, never served',
  'DELETE /v1/projects/:projectId/metrics/:metricKey':
    'metric definitions: what experiments measure, never served',
  // Drafts measure nothing until started, and starting passes the gate (tried below).
  'POST /v1/projects/:projectId/experiments': 'a draft experiment: nothing is measured until it starts',
  'PATCH /v1/projects/:projectId/experiments/:experimentKey':
    'a draft experiment: nothing is measured until it starts',
  'DELETE /v1/projects/:projectId/experiments/:experimentKey':
    'a draft experiment: nothing is measured until it starts',
  // Release plans: a template or a draft plan is served to no one; starting one passes the gate
  // (tried below). Its moves are the steps of a plan approved when it started (SPEC §13): proceed
  // goes to the next of the milestones approved, rollback serves again what production served
  // before, pause and resume hold or re-time them.
  'POST /v1/projects/:projectId/release-templates': 'release templates: milestones to copy, never served',
  'PATCH /v1/projects/:projectId/release-templates/:templateKey':
    'release templates: milestones to copy, never served',
  'DELETE /v1/projects/:projectId/release-templates/:templateKey':
    'release templates: milestones to copy, never served',
  'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan':
    'a draft plan: nothing is served until it starts through the gate',
  'DELETE /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan':
    'only a plan that is not running is deleted; the flag stays as it is',
  'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan/pause':
    'holds an approved plan where it is',
  'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan/resume':
    'an approved plan runs its approved milestones again',
  'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan/proceed':
    'the next of the milestones approved when the plan started',
  'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan/rollback':
    'serves again the control production served before the approved plan',
  // Keeping an environment as it is.
  'DELETE /v1/flags/:flagId/scheduled-changes/:changeId':
    'cancelling a pending change keeps the environment as it is',
  'DELETE /v1/projects/:projectId/flags/:flagKey/scheduled-changes/:changeId':
    'cancelling a pending change keeps the environment as it is',
  // Where code names flags (issue 39): shown to people, never served.
  'PUT /v1/projects/:projectId/code-references/:repository':
    "a repository's code references: where code names flags, read by people, never served",
  // MCP's door (decision 1990): each tool call is an ordinary request to a /v1 route, tried there.
  'POST /mcp': 'every tool call is a request to its own /v1 route, as the same key, through this gate',
  // The gate's own doors: they apply only what others approved (test/approvals/change-requests.test.ts says who may).
  'POST /v1/change-requests/:requestId/approve': 'the gate itself',
  'POST /v1/change-requests/:requestId/apply': 'the gate itself',
  'POST /v1/change-requests/:requestId/reject': 'the gate itself',
  'POST /v1/change-requests/:requestId/withdraw': 'the gate itself',
  // Credentials, people and sessions: who may write, not what is served.
  'POST /v1/projects/:projectId/api-keys': 'API keys (admins)',
  'POST /v1/api-keys': 'API keys (admins)',
  'DELETE /v1/api-keys/:keyId': 'API keys (admins)',
  'PATCH /v1/accounts/:accountId': 'accounts (admins)',
  'DELETE /v1/accounts/:accountId': 'accounts (admins)',
  'POST /v1/accounts/:accountId/password-reset': 'accounts (admins)',
  'POST /v1/invitations': 'accounts (admins)',
  'DELETE /v1/invitations/:invitationId': 'accounts (admins)',
  'POST /v1/me/password': "one's own password",
  // SCIM provisioning creates, changes and deactivates accounts: people, not flag state.
  'POST /scim/v2/Users': 'accounts (SCIM)',
  'PUT /scim/v2/Users/:id': 'accounts (SCIM)',
  'PATCH /scim/v2/Users/:id': 'accounts (SCIM)',
  'DELETE /scim/v2/Users/:id': 'accounts (SCIM)',
  // SCIM groups give accounts their roles: who may write, not what is served.
  'POST /scim/v2/Groups': 'groups of accounts (SCIM)',
  'PUT /scim/v2/Groups/:id': 'groups of accounts (SCIM)',
  'PATCH /scim/v2/Groups/:id': 'groups of accounts (SCIM)',
  'DELETE /scim/v2/Groups/:id': 'groups of accounts (SCIM)',
  'POST /v1/auth/sign-in': 'sessions',
  'POST /v1/auth/sign-out': 'sessions',
  'POST /v1/auth/invitation': 'reads an invitation',
  'POST /v1/auth/join': 'accounts from invitations',
  'POST /v1/auth/password-reset': 'password reset links',
  'POST /v1/auth/reset-password': 'password reset links',
  // Notifications about changes, not changes.
  'POST /v1/projects/:projectId/webhooks': 'webhooks (admins)',
  'PATCH /v1/projects/:projectId/webhooks/:webhookId': 'webhooks (admins)',
  'DELETE /v1/projects/:projectId/webhooks/:webhookId': 'webhooks (admins)',
  'POST /v1/projects/:projectId/webhooks/:webhookId/deliveries/:deliveryId/redeliver': 'webhooks (admins)',
  'POST /v1/projects/:projectId/webhooks/:webhookId/test': 'webhooks (admins): a test event to the receiver',
};

interface Fixture {
  readonly flagId: string;
  readonly archivedId: string;
  readonly innerId: string;
  readonly betaId: string;
}

interface Attempt {
  /** `METHOD /path` as registered. */
  readonly route: string;
  /** What the attempt does, for the failure message. */
  readonly what: string;
  readonly url: (f: Fixture) => string;
  readonly body?: unknown;
  /** 200: a batch, answered flag by flag; every flag's write must have become a change request. */
  readonly status: 200 | 202 | 403;
}

const FLAGD_DISABLED = {
  flags: { guarded: { state: 'DISABLED', variants: { on: true, off: false }, defaultVariant: 'on' } },
};

/** Each write that could change production, as an editor would try it. */
const ATTEMPTS: readonly Attempt[] = [
  {
    route: 'PATCH /v1/flags/:flagId',
    what: 'switch production off, by id',
    url: (f) => `/v1/flags/${f.flagId}?environment=production`,
    body: { enabled: false },
    status: 202,
  },
  {
    route: 'PATCH /v1/flags/:flagId',
    what: 'archive, by id',
    url: (f) => `/v1/flags/${f.flagId}`,
    body: { archived: true },
    status: 202,
  },
  {
    route: 'PATCH /v1/flags/:flagId',
    what: 'unarchive, by id',
    url: (f) => `/v1/flags/${f.archivedId}`,
    body: { archived: false },
    status: 202,
  },
  {
    route: 'PATCH /v1/projects/:projectId/flags/:flagKey',
    what: 'switch production off, by key',
    url: () => '/v1/projects/default/flags/guarded?environment=production',
    body: { enabled: false },
    status: 202,
  },
  {
    route: 'PATCH /v1/projects/:projectId/flags/:flagKey',
    what: 'archive, by key',
    url: () => '/v1/projects/default/flags/guarded',
    body: { archived: true },
    status: 202,
  },
  {
    route: 'DELETE /v1/flags/:flagId',
    what: 'delete, by id',
    url: (f) => `/v1/flags/${f.flagId}`,
    status: 202,
  },
  {
    route: 'DELETE /v1/projects/:projectId/flags/:flagKey',
    what: 'delete, by key',
    url: () => '/v1/projects/default/flags/guarded',
    status: 202,
  },
  {
    route: 'POST /v1/projects/:projectId/flag-batches',
    what: 'switch production off, archive, unarchive and delete, in one batch',
    url: () => '/v1/projects/default/flag-batches',
    body: {
      flags: [
        {
          flag: 'guarded',
          writes: [{ environment: 'production', patch: { enabled: false } }, { patch: { archived: true } }],
        },
        { flag: 'retired', writes: [{ patch: { archived: false } }] },
      ],
    },
    status: 200,
  },
  {
    route: 'POST /v1/projects/:projectId/flag-batches',
    what: 'delete, in a batch',
    url: () => '/v1/projects/default/flag-batches',
    body: { flags: [{ flag: 'guarded', writes: [{ delete: true }] }] },
    status: 200,
  },
  {
    route: 'POST /v1/flags/:flagId/restore',
    what: 'restore version 1 (off in production)',
    url: (f) => `/v1/flags/${f.flagId}/restore`,
    body: { version: 1 },
    status: 202,
  },
  {
    route: 'POST /v1/flags/:flagId/scheduled-changes',
    what: 'schedule production off',
    url: (f) => `/v1/flags/${f.flagId}/scheduled-changes`,
    body: { at: '2999-01-01T00:00:00Z', environment: 'production', patch: { enabled: false } },
    status: 202,
  },
  {
    route: 'POST /v1/projects/:projectId/flags/:flagKey/scheduled-changes',
    what: 'schedule production off, by key',
    url: () => '/v1/projects/default/flags/guarded/scheduled-changes',
    body: { at: '2999-01-01T00:00:00Z', environment: 'production', patch: { enabled: false } },
    status: 202,
  },
  {
    route: 'POST /v1/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan/start',
    what: 'start a release plan that serves "on" to a tenth of production',
    url: () => '/v1/projects/default/flags/guarded/environments/production/release-plan/start',
    status: 202,
  },
  {
    route: 'POST /v1/projects/:projectId/environments/:envKey/flagd',
    what: 'import a flagd document that disables the flag in production',
    url: () => '/v1/projects/default/environments/production/flagd',
    body: FLAGD_DISABLED,
    status: 202,
  },
  {
    route: 'PATCH /v1/segments/:segmentId',
    what: 'empty the segment that production uses directly',
    url: (f) => `/v1/segments/${f.betaId}`,
    body: { included: [] },
    status: 202,
  },
  {
    route: 'PATCH /v1/segments/:segmentId',
    what: 'empty the segment that production uses through another segment',
    url: (f) => `/v1/segments/${f.innerId}`,
    body: { included: [] },
    status: 202,
  },
  {
    route: 'DELETE /v1/segments/:segmentId',
    what: 'delete the segment production uses through another segment',
    url: (f) => `/v1/segments/${f.innerId}`,
    status: 202,
  },
  {
    route: 'POST /v1/segments/:segmentId/restore',
    what: 'restore the segment to its empty first version',
    url: (f) => `/v1/segments/${f.betaId}/restore`,
    body: { version: 1 },
    status: 202,
  },
  {
    route: 'POST /v1/projects/:projectId/experiments/:experimentKey/start',
    what: 'start an experiment in production',
    url: () => '/v1/projects/default/experiments/draft-exp/start',
    status: 202,
  },
  {
    route: 'POST /v1/projects/:projectId/experiments/:experimentKey/stop',
    what: 'stop the experiment running in production',
    url: () => '/v1/projects/default/experiments/running-exp/stop',
    status: 202,
  },
  {
    route: 'PATCH /v1/projects/:projectId/environments/:envKey',
    what: 'switch production protection off',
    url: () => '/v1/projects/default/environments/production',
    body: { protected: false },
    status: 403,
  },
  {
    route: 'PATCH /v1/projects/:projectId/environments/:envKey',
    what: "drop production's approvals",
    url: () => '/v1/projects/default/environments/production',
    body: { requiredApprovals: 0 },
    status: 403,
  },
  {
    route: 'DELETE /v1/projects/:projectId/environments/:envKey',
    what: 'delete production',
    url: () => '/v1/projects/default/environments/production',
    status: 403,
  },
  {
    route: 'PATCH /v1/projects/:projectId',
    what: 'change the project',
    url: () => '/v1/projects/default',
    body: { name: 'Renamed' },
    status: 403,
  },
  {
    route: 'DELETE /v1/projects/:projectId',
    what: 'delete the project',
    url: () => '/v1/projects/default',
    status: 403,
  },
  {
    route: 'POST /v1/projects',
    what: 'create a project',
    url: () => '/v1/projects',
    body: { key: 'another' },
    status: 403,
  },
];

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every write route of the app, from Fastify's route tree (`printRoutes`). The tree merges
 * parameters of sibling routes (`:flagId|:flagKey`): each route comes with all its readings.
 */
export function writeRoutes(tree: string): string[][] {
  const stack: string[] = [];
  const found: string[][] = [];
  for (const line of tree.split('\n')) {
    const at = line.indexOf('── ');
    if (at < 0) continue;
    const depth = Math.floor(at / 4);
    const [, segment = '', methods = ''] = /^(.*?)(?: \(([^)]*)\))?$/.exec(line.slice(at + 3)) ?? [];
    stack[depth] = segment;
    stack.length = depth + 1;
    const readings = stack.reduce<string[]>(
      (paths, part) => paths.flatMap((path) => alternatives(part).map((alt) => path + alt)),
      [''],
    );
    for (const method of methods.split(', ')) {
      if (WRITE_METHODS.has(method)) found.push(readings.map((path) => `${method} ${path}`));
    }
  }
  return found;
}

/** `/v1/flags/:flagId|:flagKey` → both, each with the text before the first parameter. */
function alternatives(part: string): string[] {
  const [first = '', ...rest] = part.split('|');
  const stem = first.slice(0, first.lastIndexOf(':'));
  return [first, ...rest.map((alt) => stem + alt)];
}

describeEachDatabase('one gate for every write route (route table)', (database) => {
  let node: Harness;
  let fixture: Fixture;
  let editorKey: string;
  let editorCookie: string;
  const production = async () =>
    Promise.all(
      ['u1', 'u2', 'u3'].map(async (targetingKey) => {
        const res = await node.call('POST', '/v1/evaluate?project=default', {
          body: { environment: 'production', attributes: { targetingKey } },
        });
        expect(res.status).toBe(200);
        return res.body;
      }),
    );

  beforeAll(async () => {
    node = await startHarness(database);
    const admin = (method: string, url: string, body?: unknown) => node.call(method, url, { body });
    const inner = await admin('POST', '/v1/projects/default/segments', { key: 'inner', included: ['u2'] });
    const beta = await admin('POST', '/v1/projects/default/segments', { key: 'beta' });
    // Version 2: u1, and everyone in "inner" (a segment in a segment).
    await admin('PATCH', `/v1/segments/${beta.body.id}`, {
      match: 'any',
      included: ['u1'],
      rules: [{ type: 'segment', segment: 'inner' }],
    });
    const flag = await admin('POST', '/v1/projects/default/flags', { key: 'guarded' });
    const configured = await admin('PATCH', `/v1/flags/${flag.body.id}`, {
      environments: {
        production: { enabled: true, rules: [{ segments: ['beta'], serve: { variant: 'off' } }] },
        development: { enabled: true },
      },
    });
    expect(configured.status, JSON.stringify(configured.body)).toBe(200);
    const plan = await admin(
      'POST',
      '/v1/projects/default/flags/guarded/environments/production/release-plan',
      {
        control: 'off',
        treatment: 'on',
        milestones: [{ name: 'tenth', rollout: 10, hold: '1d' }],
      },
    );
    expect(plan.status, JSON.stringify(plan.body)).toBe(201);
    const archived = await admin('POST', '/v1/projects/default/flags', { key: 'retired' });
    await admin('PATCH', `/v1/flags/${archived.body.id}?environment=production`, { enabled: true });
    await admin('PATCH', `/v1/flags/${archived.body.id}`, { archived: true });
    // An experiment to start (on "guarded") and one running (on "measured"), both in production.
    await admin('POST', '/v1/projects/default/flags', { key: 'measured' });
    await admin('POST', '/v1/projects/default/metrics', { key: 'clicks', event: 'click', kind: 'count' });
    for (const [key, on] of [
      ['draft-exp', 'guarded'],
      ['running-exp', 'measured'],
    ]) {
      const made = await admin('POST', '/v1/projects/default/experiments', {
        key,
        flag: on,
        environment: 'production',
        control: 'off',
        treatments: ['on'],
        metrics: { primary: 'clicks' },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    expect((await admin('POST', '/v1/projects/default/experiments/running-exp/start')).status).toBe(200);
    expect(
      (await admin('PATCH', '/v1/projects/default/environments/production', { requiredApprovals: 1 })).status,
    ).toBe(200);
    fixture = {
      flagId: flag.body.id,
      archivedId: archived.body.id,
      innerId: inner.body.id,
      betaId: beta.body.id,
    };

    const projectId = (await admin('GET', '/v1/projects/default')).body.id;
    editorKey = (await createKey(node.services, projectId, 'editor', null, { name: 'editor key' })).secret;
    const invited = await admin('POST', '/v1/invitations', {
      email: 'editor@example.com',
      role: 'editor',
      project: 'default',
    });
    const joined = await node.call('POST', '/v1/auth/join', {
      key: null,
      body: { token: invited.body.token, name: 'Eddie', password: 'a long enough password' },
    });
    expect(joined.status, JSON.stringify(joined.body)).toBeLessThan(300);
    editorCookie = String(joined.headers['set-cookie']).split(';')[0] as string;
  });
  afterAll(() => node?.close());

  it('knows every write route: tried here, or listed as unable to change an evaluation', () => {
    const routes = writeRoutes(node.app.printRoutes({ commonPrefix: false }));
    const tried = new Set(ATTEMPTS.map((a) => a.route));
    const known = (name: string) => tried.has(name) || name in CANNOT_CHANGE_EVALUATION;
    const unclassified = routes.filter((readings) => !readings.some(known)).map((readings) => readings[0]);
    expect(
      unclassified,
      'Write routes neither tried against the gate nor listed as unable to change an evaluation',
    ).toEqual([]);
    // And the lists name only routes that exist.
    const registered = new Set(routes.flat());
    expect([...tried, ...Object.keys(CANNOT_CHANGE_EVALUATION)].filter((r) => !registered.has(r))).toEqual(
      [],
    );
  });

  for (const who of ['an editor API key', 'a signed-in editor'] as const) {
    it(`answers ${who} 202 or 403 (a batch: a change request per flag) on every write that could change production, which evaluates as before`, async () => {
      const as =
        who === 'an editor API key'
          ? { key: editorKey }
          : { key: null, headers: { cookie: editorCookie, origin: 'http://localhost', host: 'localhost' } };
      const before = await production();
      // u1 is in "beta", u2 in it through "inner": both off; u3 gets the default.
      const guarded = before.map((result) => result.flags.find((f: { key: string }) => f.key === 'guarded'));
      expect(guarded.map((r) => [r.value, r.reason])).toEqual([
        [false, 'targeting'],
        [false, 'targeting'],
        [true, 'default'],
      ]);
      for (const attempt of ATTEMPTS) {
        const [method = '', _path] = attempt.route.split(' ');
        const res = await node.call(method, attempt.url(fixture), {
          ...as,
          ...(attempt.body === undefined ? {} : { body: attempt.body }),
        });
        const label = `${attempt.route} (${attempt.what}) as ${who}: ${JSON.stringify(res.body)}`;
        expect(res.status, label).toBe(attempt.status);
        if (res.status === 202)
          expect(res.headers.location, label).toBe(`/v1/change-requests/${res.body.id}`);
        if (attempt.status === 200) {
          const outcomes = res.body.flags.map((f: { outcome: string }) => f.outcome);
          expect(outcomes, label).toEqual(outcomes.map(() => 'requested'));
        }
        expect(await production(), label).toEqual(before);
      }
      // Nothing was written meanwhile: the flag is at the version the admin left it.
      const flag = await node.call('GET', '/v1/projects/default/flags/guarded', { key: ADMIN_KEY });
      expect(flag.body.version).toBe(2);
    });
  }
});
