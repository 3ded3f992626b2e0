import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../openfeature/support/varied-project.ts';
import { buildUnreachableWebhook } from '../support/builders.ts';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { expectCreated } from '../support/created.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// Experiments (SPEC §13, docs/measurement.md): drafts created, listed, read, patched and deleted,
// started and stopped through the one gate, every write audited; bad input refused naming the field.

const DRAFT = {
  flag: 'banner',
  environment: 'production',
  control: 'off',
  treatments: ['on'],
  metrics: { primary: 'buys', secondary: ['spend'] },
};

describeEachDatabase('experiments: /v1/projects/{p}/experiments', (database) => {
  let server: TestServer;
  let viewer: string;
  let editor: string;
  let otherEditor: string;
  const admin = (method: string, path: string, body?: unknown) => callAsAdmin(server, method, path, body);
  const create = (body: unknown, key?: string) =>
    server.call('POST', '/v1/projects/default/experiments', { body, ...(key === undefined ? {} : { key }) });
  const run = (key: string, verb: 'start' | 'stop', as?: string) =>
    server.call(
      'POST',
      `/v1/projects/default/experiments/${key}/${verb}`,
      as === undefined ? {} : { key: as },
    );

  beforeAll(async () => {
    server = await startTestServer(database);
    viewer = await createKey(server, { role: 'viewer' });
    editor = await createKey(server, { role: 'editor' });
    otherEditor = await createKey(server, { role: 'editor' });
    for (const key of ['banner', 'hero', 'footer', 'retired']) {
      await admin('POST', '/v1/projects/default/flags', { key });
    }
    await admin('POST', '/v1/projects/default/flags', {
      key: 'single',
      type: 'string',
      variants: [{ key: 'only', value: 'x' }],
    });
    await admin('PATCH', '/v1/projects/default/flags/retired', { archived: true });
    await admin('POST', '/v1/projects/default/metrics', {
      key: 'buys',
      event: 'purchase',
      kind: 'conversion',
    });
    await admin('POST', '/v1/projects/default/metrics', { key: 'spend', event: 'purchase', kind: 'sum' });
    // A webhook of experiments only, stored as if registered where private addresses are allowed.
    const projectId = (await admin('GET', '/v1/projects/default')).id;
    await server.store.webhooks.insertWebhook(
      buildUnreachableWebhook('whk_experiments', projectId, ['experiment.*']),
    );
  });
  afterAll(() => server?.close());

  it('creates a draft with its defaults, answers it with its address and version, and lists it', async () => {
    const res = await create({ key: 'first', ...DRAFT });
    expectCreated(res, '/v1/projects/default/experiments/first');
    expect(res.body).toMatchObject({
      key: 'first',
      name: 'first',
      flag: 'banner',
      metrics: { primary: 'buys', secondary: ['spend'], guardrails: [] },
      analysis: { method: 'frequentist', alpha: 0.05, sequential: false },
      cuped: false,
      status: 'draft',
      startedAt: null,
      stoppedAt: null,
      version: 1,
    });
    await admin('POST', '/v1/projects/default/experiments', {
      key: 'second',
      ...DRAFT,
      flag: 'hero',
      analysis: { method: 'bayesian', alpha: 0.1 },
      cuped: true,
    });
    const page = await server.call('GET', '/v1/projects/default/experiments?limit=1', { key: viewer });
    expect(page.status).toBe(200);
    expect(page.body.map((e: { key: string }) => e.key)).toEqual(['first']);
    expect(page.headers.get('link')).toContain('rel="next"');
    const drafts = await server.call('GET', '/v1/projects/default/experiments?status=draft', { key: viewer });
    expect(drafts.body.map((e: { key: string }) => e.key)).toEqual(['first', 'second']);
    const one = await server.call('GET', '/v1/projects/default/experiments/second', { key: viewer });
    expect(one.body).toMatchObject({ analysis: { method: 'bayesian', alpha: 0.1 }, cuped: true });
  });

  it('patches and deletes a draft under If-Match, and audits each write', async () => {
    await admin('POST', '/v1/projects/default/experiments', { key: 'patched', ...DRAFT, flag: 'footer' });
    const stale = await server.call('PATCH', '/v1/projects/default/experiments/patched', {
      body: { name: 'Renamed' },
      headers: { 'if-match': '"7"' },
    });
    expect(stale.status).toBe(412);
    const patched = await server.call('PATCH', '/v1/projects/default/experiments/patched', {
      body: {
        name: 'Renamed',
        analysis: { sequential: true },
        metrics: { primary: 'spend', secondary: ['buys'] },
      },
      headers: { 'if-match': '"1"' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Renamed',
      version: 2,
      analysis: { method: 'frequentist', sequential: true },
      metrics: { primary: 'spend', secondary: ['buys'], guardrails: [] },
    });
    const deleted = await server.call('DELETE', '/v1/projects/default/experiments/patched');
    expect(deleted.status).toBe(204);
    expect((await server.call('GET', '/v1/projects/default/experiments/patched')).status).toBe(404);
    const log = await admin('GET', '/v1/projects/default/audit-log?resourceType=experiment&limit=100');
    const actions = log
      .filter((e: { resource: { key: string } }) => e.resource.key === 'patched')
      .map((e: { action: string }) => e.action);
    expect(actions).toEqual(['experiment.deleted', 'experiment.updated', 'experiment.created']);
  });

  it('starts and stops, each once, stamping the times; a started or stopped one is no longer changed or deleted', async () => {
    const started = await run('first', 'start');
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ status: 'running', stoppedAt: null, version: 2 });
    expect(Date.parse(started.body.startedAt)).toBeGreaterThan(0);
    const again = await run('first', 'start');
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe(
      'The experiment "first" is running: only a draft experiment can be started.',
    );
    const patch = await server.call('PATCH', '/v1/projects/default/experiments/first', {
      body: { name: 'x' },
    });
    expect(patch.status).toBe(409);
    expect(patch.body.detail).toContain('only a draft can be changed');
    expect((await server.call('DELETE', '/v1/projects/default/experiments/first')).status).toBe(409);
    const stopped = await run('first', 'stop');
    expect(stopped.body).toMatchObject({ status: 'stopped', startedAt: started.body.startedAt, version: 3 });
    expect((await run('first', 'stop')).status).toBe(409);
    const log = await admin('GET', '/v1/projects/default/audit-log?resourceType=experiment&limit=100');
    const mine = log.filter((e: { resource: { key: string } }) => e.resource.key === 'first');
    expect(mine.map((e: { action: string }) => e.action).slice(0, 2)).toEqual([
      'experiment.stopped',
      'experiment.started',
    ]);
    expect(mine[0]).toMatchObject({ environment: 'production', after: { status: 'stopped' } });
  });

  it("announces every write to the project's webhooks that subscribe to experiments", async () => {
    const deliveries = await admin(
      'GET',
      '/v1/projects/default/webhooks/whk_experiments/deliveries?limit=100',
    );
    const first = deliveries.filter(
      (d: { payload: { event: { resource: { key: string } } } }) => d.payload.event.resource.key === 'first',
    );
    expect(first.map((d: { event: string }) => d.event).sort()).toEqual([
      'experiment.created',
      'experiment.started',
      'experiment.stopped',
    ]);
  });

  it('lets viewers read but not write, and editors of another environment not set one up here', async () => {
    expect((await create({ key: 'by-viewer', ...DRAFT }, viewer)).status).toBe(403);
    const devEditor = await createKey(server, { role: 'editor', environments: ['development'] });
    expect((await create({ key: 'by-dev', ...DRAFT }, devEditor)).status).toBe(403);
    expect((await run('second', 'start', devEditor)).status).toBe(403);
  });

  describe('refuses bad input, naming the field', () => {
    const refused = async (body: object, path: string, message: string) => {
      const res = await create({ key: `bad-${Math.random().toString(36).slice(2)}`, ...DRAFT, ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.errors).toContainEqual({ path, message });
    };

    it('unknown metric keys', async () => {
      await refused(
        { metrics: { primary: 'nope' } },
        '/metrics/primary',
        'No metric "nope" in this project.',
      );
      await refused(
        { metrics: { primary: 'buys', guardrails: ['spend', 'gone'] } },
        '/metrics/guardrails/1',
        'No metric "gone" in this project.',
      );
    });

    it('a flag with one variant, or none of that key', async () => {
      await refused(
        { flag: 'single', control: 'only', treatments: ['only'] },
        '/flag',
        'The flag "single" has one variant: an experiment compares at least two.',
      );
      await refused({ flag: 'nowhere' }, '/flag', 'No flag "nowhere" in this project.');
    });

    it('control or treatments not among the flag’s variants, and the control as a treatment', async () => {
      await refused(
        { control: 'blue' },
        '/control',
        '"blue" is not a variant of the flag "banner" ("on", "off").',
      );
      await refused(
        { treatments: ['on', 'green'] },
        '/treatments/1',
        '"green" is not a variant of the flag "banner" ("on", "off").',
      );
      await refused(
        { treatments: ['off'] },
        '/treatments/0',
        '"off" is the control: a treatment is compared with it.',
      );
    });

    it('an unknown environment, a sequential Bayesian analysis, a bad alpha', async () => {
      await refused({ environment: 'staging' }, '/environment', 'No environment "staging" in this project.');
      await refused(
        { analysis: { method: 'bayesian', sequential: true } },
        '/analysis/sequential',
        'Sequential testing is a frequentist analysis.',
      );
      const res = await create({ key: 'bad-alpha', ...DRAFT, analysis: { alpha: 0 } });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain('/analysis/alpha');
    });

    it('a second running comparison on the same flag and environment, and an archived flag', async () => {
      await admin('POST', '/v1/projects/default/experiments', { key: 'hero-a', ...DRAFT, flag: 'hero' });
      await admin('POST', '/v1/projects/default/experiments', { key: 'hero-b', ...DRAFT, flag: 'hero' });
      expect((await run('hero-a', 'start')).status).toBe(200);
      const second = await run('hero-b', 'start');
      expect(second.status).toBe(409);
      expect(second.body.detail).toBe(
        'The flag "hero" is measured in "production" already (by "hero-a"): one comparison at a time per flag and environment.',
      );
      // In another environment it may run.
      await admin('POST', '/v1/projects/default/experiments', {
        key: 'hero-dev',
        ...DRAFT,
        flag: 'hero',
        environment: 'development',
      });
      expect((await run('hero-dev', 'start')).status).toBe(200);
      // An archived flag's experiment is set up (it validates) but does not start.
      const made = await server.call('POST', '/v1/projects/default/experiments', {
        body: { key: 'on-retired', ...DRAFT, flag: 'retired' },
      });
      expect(made.status).toBe(201);
      const start = await run('on-retired', 'start');
      expect(start.status).toBe(409);
      expect(start.body.detail).toBe('The flag "retired" is archived: an experiment on it cannot start.');
    });
  });

  describe('the gate', () => {
    beforeAll(async () => {
      await admin('PATCH', '/v1/projects/default/environments/production', { requiredApprovals: 1 });
      await admin('POST', '/v1/projects/default/flags', { key: 'gated' });
      await admin('POST', '/v1/projects/default/experiments', { key: 'gated-exp', ...DRAFT, flag: 'gated' });
    });
    afterAll(() => admin('PATCH', '/v1/projects/default/environments/production', { requiredApprovals: 0 }));

    it("turns an editor's start in a guarded environment into a change request, applied on approval", async () => {
      const asked = await run('gated-exp', 'start', editor);
      expect(asked.status, JSON.stringify(asked.body)).toBe(202);
      expect(asked.headers.get('location')).toBe(`/v1/change-requests/${asked.body.id}`);
      expect(asked.body).toMatchObject({
        kind: 'experiment.start',
        environment: 'production',
        status: 'open',
      });
      expect((await admin('GET', '/v1/projects/default/experiments/gated-exp')).status).toBe('draft');
      const approved = await server.call('POST', `/v1/change-requests/${asked.body.id}/approve`, {
        key: otherEditor,
        body: {},
      });
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      expect(approved.body.status).toBe('applied');
      const experiment = await admin('GET', '/v1/projects/default/experiments/gated-exp');
      expect(experiment.status).toBe('running');
      const log = await admin('GET', '/v1/projects/default/audit-log?resourceType=experiment&limit=5');
      expect(log[0]).toMatchObject({
        action: 'experiment.started',
        details: { changeRequest: asked.body.id },
      });
      // The stop too; an admin stops directly.
      const stop = await run('gated-exp', 'stop', editor);
      expect(stop.status).toBe(202);
      expect(stop.body.kind).toBe('experiment.stop');
      const direct = await run('gated-exp', 'stop');
      expect(direct.status).toBe(200);
      expect(direct.body.status).toBe('stopped');
      // The editor's request no longer applies: the experiment is stopped already.
      const late = await server.call('POST', `/v1/change-requests/${stop.body.id}/approve`, {
        key: otherEditor,
        body: {},
      });
      expect(late.status).toBe(409);
      expect(late.body.detail).toContain('is stopped now');
    });
  });
});
