import { afterAll, beforeAll, expect, it } from 'vitest';
import { ChangeScheduler } from '../../src/services/governance/change-scheduler.ts';
import { createKey, FakeClock, type Harness, startHarness } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { milestones, RELEASED_FLAG, releasePlanBody } from '../support/release-plans.ts';

const MINUTE = 60_000;
const PLAN = '/v1/projects/default/flags/checkout/environments/production/release-plan';

const TEMPLATE = {
  key: 'gradual',
  name: 'Gradual',
  milestones: milestones(['canary', 10, '10m'], ['half', 50, '1h'], ['everyone', 100, 'until-proceeded']),
};

describeEachDatabase('release plans (SPEC §13)', (database) => {
  let node: Harness;
  const clock = new FakeClock();
  let scheduler: ChangeScheduler;

  const served = async () => {
    const flag = (await node.call('GET', '/v1/projects/default/flags/checkout')).body;
    return flag.environments.production;
  };

  beforeAll(async () => {
    node = await startHarness(database, { clock });
    const created = await node.call('POST', '/v1/projects/default/flags', { body: RELEASED_FLAG });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await node.call('PATCH', '/v1/projects/default/flags/checkout?environment=production', {
      body: { enabled: true, defaultVariant: 'old' },
    });
    scheduler = new ChangeScheduler(node.store, node.services.scheduledChanges, { clock: clock.read });
  });
  afterAll(() => node.close());

  it('keeps templates: create, read, change and delete, each audited', async () => {
    const made = await node.call('POST', '/v1/projects/default/release-templates', { body: TEMPLATE });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.headers.location).toBe('/v1/projects/default/release-templates/gradual');
    expect(made.body.milestones).toEqual([
      { name: 'canary', rollout: 10, holdSeconds: 600 },
      { name: 'half', rollout: 50, holdSeconds: 3600 },
      { name: 'everyone', rollout: 100, holdSeconds: null },
    ]);
    const extra = await node.call('POST', '/v1/projects/default/release-templates', {
      body: { ...TEMPLATE, key: 'spare' },
    });
    const patched = await node.call('PATCH', '/v1/projects/default/release-templates/spare', {
      body: { onBreach: 'pause' },
      headers: { 'if-match': `"${extra.body.version}"` },
    });
    expect(patched.body).toMatchObject({ onBreach: 'pause', version: 2 });
    expect((await node.call('DELETE', '/v1/projects/default/release-templates/spare')).status).toBe(204);
    const list = await node.call('GET', '/v1/projects/default/release-templates');
    expect(list.body.map((t: { key: string }) => t.key)).toEqual(['gradual']);
    const audit = await node.call('GET', '/v1/projects/default/audit-log?resourceType=release_template');
    expect(audit.body.map((e: { action: string }) => e.action).sort()).toEqual([
      'release_template.created',
      'release_template.created',
      'release_template.deleted',
      'release_template.updated',
    ]);
  });

  it('refuses bad plans, naming each field', async () => {
    const bad = await node.call('POST', PLAN, {
      body: releasePlanBody(
        [
          ['a', 50, '10m'],
          ['b', 20, '0s'],
          ['c', 100, 'soon'],
        ],
        {
          guards: [
            { kind: 'metric', name: 'conversion', metric: 'no-such-metric' },
            {
              kind: 'prometheus',
              name: 'errors',
              query: 'sum(rate(errors_total[1m]))',
              threshold: { above: 0.1 },
            },
          ],
          guardInterval: '-1m',
        },
      ),
    });
    expect(bad.status).toBe(400);
    const paths = bad.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/milestones/1/rollout',
        '/milestones/1/hold',
        '/milestones/2/hold',
        '/guardInterval',
        '/guards/0/metric',
        '/guards/1/query',
      ]),
    );
    const messages = JSON.stringify(bad.body.errors);
    expect(messages).toContain('must release more than the milestone before it (50%), not 20%');
    expect(messages).toContain('must contain $variant');
    expect(messages).toContain('names no metric');
  });

  it('refuses a plan on an archived flag', async () => {
    await node.call('POST', '/v1/projects/default/flags', { body: { key: 'gone' } });
    await node.call('PATCH', '/v1/projects/default/flags/gone', { body: { archived: true } });
    const res = await node.call(
      'POST',
      '/v1/projects/default/flags/gone/environments/production/release-plan',
      {
        body: { template: 'gradual' },
      },
    );
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'params:/flagKey', message: 'names an archived flag' }]);
  });

  it('makes a plan from a template, starts it, and steps on time through the scheduler, as the plan', async () => {
    const made = await node.call('POST', PLAN, { body: { template: 'gradual', treatment: 'new' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      status: 'draft',
      control: 'old',
      treatment: 'new',
      template: 'gradual',
    });
    expect(made.body.milestones[0].weights).toEqual([
      { variant: 'old', weight: 90 },
      { variant: 'new', weight: 10 },
    ]);
    const started = await node.call('POST', `${PLAN}/start`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ status: 'running', current: 0 });
    expect((await served()).defaultRollout.weights).toEqual(made.body.milestones[0].weights);
    clock.advance(9 * MINUTE);
    expect((await scheduler.runDue()).applied).toEqual([]);
    clock.advance(MINUTE);
    const pass = await scheduler.runDue();
    const sched = (await node.call('GET', `/v1/flags/${made.body.flagId}/scheduled-changes`)).body;
    expect(pass.applied, JSON.stringify([pass, sched])).toEqual([started.body.nextStep.id]);
    expect((await scheduler.runDue()).applied).toEqual([]);
    expect((await served()).defaultRollout.weights).toEqual([
      { variant: 'old', weight: 50 },
      { variant: 'new', weight: 50 },
    ]);
    const plan = (await node.call('GET', PLAN)).body;
    expect(plan).toMatchObject({ status: 'running', current: 1 });
    const step = await node.call('DELETE', `/v1/flags/${plan.flagId}/scheduled-changes/${plan.nextStep.id}`);
    expect(step.status).toBe(409);
    expect(step.body.detail).toContain('a step of a release plan');
    expect(plan.events.map((e: { action: string }) => e.action)).toEqual([
      'created',
      'started',
      'progressed',
    ]);
    expect(plan.events[2].by).toEqual({ type: 'release_plan', id: plan.id, name: 'release plan' });
    const writes = await node.call(
      'GET',
      '/v1/projects/default/audit-log?action=flag.updated&actorId=' + plan.id,
    );
    expect(writes.body).toHaveLength(1);
    expect(writes.body[0]).toMatchObject({
      actor: { type: 'release_plan', id: plan.id },
      details: { releasePlan: plan.id, milestone: 1 },
    });
  });

  it('pauses (the step does not run), resumes, proceeds by hand and completes', async () => {
    const paused = await node.call('POST', `${PLAN}/pause`, { body: { reason: 'looking at dashboards' } });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body).toMatchObject({
      status: 'paused',
      nextStep: null,
      stopReason: 'looking at dashboards',
    });
    clock.advance(2 * 60 * MINUTE);
    expect((await scheduler.runDue()).applied).toEqual([]);
    const resumed = await node.call('POST', `${PLAN}/resume`);
    expect(resumed.body).toMatchObject({ status: 'running', current: 1 });
    const proceeded = await node.call('POST', `${PLAN}/proceed`);
    expect(proceeded.status, JSON.stringify(proceeded.body)).toBe(200);
    expect(proceeded.body).toMatchObject({ status: 'completed', current: 2, nextStep: null });
    expect((await served()).defaultRollout.weights).toEqual([
      { variant: 'old', weight: 0 },
      { variant: 'new', weight: 100 },
    ]);
    const events = await node.call('GET', '/v1/projects/default/audit-log?resourceType=release_plan');
    expect(events.body.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining([
        'release.paused',
        'release.resumed',
        'release.progressed',
        'release.completed',
      ]),
    );
    expect((await node.call('POST', `${PLAN}/proceed`)).status).toBe(409);
  });

  it('rolls back: production serves the control again; a running plan is not deleted', async () => {
    expect((await node.call('DELETE', PLAN)).status).toBe(204);
    await node.call('POST', PLAN, { body: { template: 'gradual', treatment: 'new' } });
    await node.call('POST', `${PLAN}/start`);
    expect((await node.call('DELETE', PLAN)).status).toBe(409);
    const rolled = await node.call('POST', `${PLAN}/rollback`, { body: { reason: 'support tickets' } });
    expect(rolled.status, JSON.stringify(rolled.body)).toBe(200);
    expect(rolled.body).toMatchObject({ status: 'rolled_back', stopReason: 'support tickets' });
    const config = await served();
    expect(config.defaultRollout).toBeUndefined();
    expect(config.defaultVariant).toBe('old');
    // Everyone: no unit is bucketed into the new variant any more.
    for (const unit of ['u1', 'u2', 'u3', 'u4', 'u5', 'u6']) {
      const evaluation = await node.call('POST', '/v1/flags/checkout/evaluate?project=default', {
        body: { environment: 'production', attributes: { targetingKey: unit } },
      });
      expect(evaluation.body.variant, JSON.stringify(evaluation.body)).toBe('old');
    }
    clock.advance(24 * 60 * MINUTE);
    expect((await scheduler.runDue()).applied).toEqual([]);
  });

  it('passes the gate once: an editor’s start is a change request; once approved, steps need no approval', async () => {
    const project = (await node.call('GET', '/v1/projects/default')).body;
    await node.call('PATCH', '/v1/projects/default/environments/production', {
      body: { requiredApprovals: 1 },
    });
    const editor = await createKey(node.services, project.id, 'editor');
    await node.call('DELETE', PLAN);
    const made = await node.call('POST', PLAN, {
      key: editor.secret,
      body: { template: 'gradual', treatment: 'new' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const before = await served();
    const asked = await node.call('POST', `${PLAN}/start`, { key: editor.secret });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body).toMatchObject({ kind: 'release.start', status: 'open' });
    expect(await served()).toEqual(before);
    expect((await node.call('GET', PLAN)).body).toMatchObject({
      status: 'awaiting_approval',
      changeRequest: asked.body.id,
    });
    const approved = await node.call('POST', `/v1/change-requests/${asked.body.id}/approve`, { body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.status).toBe('applied');
    const plan = (await node.call('GET', PLAN)).body;
    expect(plan).toMatchObject({ status: 'running', current: 0 });
    clock.advance(10 * MINUTE);
    expect((await scheduler.runDue()).applied).toEqual([plan.nextStep.id]);
    expect((await node.call('GET', PLAN)).body.current).toBe(1);
    const requests = await node.call('GET', '/v1/projects/default/change-requests?status=open');
    expect(requests.body).toEqual([]);
    await node.call('POST', `${PLAN}/rollback`);
    await node.call('PATCH', '/v1/projects/default/environments/production', {
      body: { requiredApprovals: 0 },
    });
  });
});
