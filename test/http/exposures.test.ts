import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningExperiment, RunningExperiments } from '../../src/domain/exposure.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import type { Services } from '../../src/services/services.ts';
import { buildTestApp } from '../support/app.ts';
import { describeEachDatabase, type OpenTestDatabase } from '../support/database.ts';
import { EVEN_SPLIT } from '../support/requests.ts';
import { ADMIN_KEY, UNLIMITED } from '../support/server.ts';

// Exposures (SPEC §13): a single server-side evaluation of a flag under a running experiment
// exposes its unit, once; a bulk one exposes no one; `$exposure` events expose too; a unit shown
// two variants stays in its first and is counted multiple. Experiments are another part's: this
// suite runs one through the port they will implement (domain/exposure.ts).

/** One experiment, running on `banner` in production of the project whose id the test learns. */
class OneExperiment implements RunningExperiments {
  projectId = '';
  readonly experiment: RunningExperiment = { key: 'exp-banner', variants: ['on', 'off'] };
  covering(projectId: string, environment: string, flagKey: string): RunningExperiment | undefined {
    const covered = projectId === this.projectId && environment === 'production' && flagKey === 'banner';
    return covered ? this.experiment : undefined;
  }
}

describeEachDatabase('exposures', (database) => {
  let opened: OpenTestDatabase;
  let services: Services;
  let app: FastifyInstance;
  const experiments = new OneExperiment();

  const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown, headers = {}) => {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-flagstaff-project': 'default', ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return JSON.parse(res.body);
  };
  const exposures = async () => {
    await services.exposures.flush();
    return opened.store.exposures.listExposures(experiments.projectId, 'exp-banner');
  };
  const units = async () => (await exposures()).map((e) => e.unit);
  const rest = (unit: string, flag = 'banner') =>
    call(
      'GET',
      `/v1/flags/${flag}?project=default&attributes=${encodeURIComponent(JSON.stringify({ targetingKey: unit }))}`,
    );
  const ofrep = (unit: string) =>
    call('POST', '/ofrep/v1/evaluate/flags/banner', { context: { targetingKey: unit } });

  beforeAll(async () => {
    opened = await database.open();
    await bootstrap(opened.store, ADMIN_KEY);
    ({
      app,
      node: { services },
    } = await buildTestApp(opened.store, { node: { experiments }, accessControl: UNLIMITED }));
    experiments.projectId = (await call('GET', '/v1/projects/default')).id;
    for (const key of ['banner', 'other']) {
      const flag = await call('POST', '/v1/projects/default/flags', { key });
      await call('PATCH', `/v1/flags/${flag.id}?environment=production`, EVEN_SPLIT);
    }
  });
  afterAll(async () => {
    await app?.close();
    await opened?.close();
  });

  it('records a unit evaluated singly (REST and OFREP) in the variant it was served, once however often', async () => {
    const served = await rest('rest-user');
    for (let i = 0; i < 20; i++) await rest('rest-user');
    const byBody = await call('POST', '/v1/flags/banner/evaluate?project=default', {
      environment: 'production',
      attributes: { targetingKey: 'body-user' },
    });
    const overOfrep = await ofrep('ofrep-user');
    const all = await exposures();
    expect(all.map((e) => [e.unit, e.variant, e.multiple])).toEqual([
      ['body-user', byBody.variant, false],
      ['ofrep-user', overOfrep.variant, false],
      ['rest-user', served.variant, false],
    ]);
    for (const e of all) expect(e).toMatchObject({ experiment: 'exp-banner', environment: 'production' });
    // Served the same variant again after the flush: nothing changes.
    await rest('rest-user');
    expect((await exposures()).find((e) => e.unit === 'rest-user')).toEqual(
      all.find((e) => e.unit === 'rest-user'),
    );
  });

  it('records no one for a bulk evaluation, a flag under no experiment, or another environment', async () => {
    await call('POST', '/ofrep/v1/evaluate/flags', { context: { targetingKey: 'bulk-user' } });
    await call('POST', '/v1/evaluate?project=default', { attributes: { targetingKey: 'bulk-rest-user' } });
    await rest('other-flag-user', 'other');
    await call(
      'GET',
      `/v1/flags/banner?project=default&environment=development&attributes=${encodeURIComponent('{"targetingKey":"dev-user"}')}`,
    );
    const seen = await units();
    for (const unit of ['bulk-user', 'bulk-rest-user', 'other-flag-user', 'dev-user']) {
      expect(seen).not.toContain(unit);
    }
  });

  it('records $exposure events, at the time they say', async () => {
    const at = new Date(Date.now() - 60_000).toISOString();
    const answer = await call('POST', '/v1/events', {
      events: [
        {
          name: '$exposure',
          context: { targetingKey: 'client-user' },
          details: { flag: 'banner', variant: 'on' },
          timestamp: at,
        },
        // A variant the experiment does not compare, and a flag it does not cover: no exposure.
        {
          name: '$exposure',
          context: { targetingKey: 'stray-user' },
          details: { flag: 'banner', variant: 'blue' },
        },
        {
          name: '$exposure',
          context: { targetingKey: 'stray-user' },
          details: { flag: 'other', variant: 'on' },
        },
      ],
    });
    expect(answer).toEqual({ accepted: 3, rejected: [] });
    const all = await exposures();
    expect(all.find((e) => e.unit === 'client-user')).toMatchObject({
      variant: 'on',
      firstAt: Date.parse(at),
    });
    expect(all.map((e) => e.unit)).not.toContain('stray-user');
  });

  it('keeps a unit shown two variants in its first, counted as a multiple exposure', async () => {
    const first = await ofrep('switcher');
    const other = first.variant === 'on' ? 'off' : 'on';
    await exposures();
    await call('POST', '/v1/events', {
      events: [
        {
          name: '$exposure',
          context: { targetingKey: 'switcher' },
          details: { flag: 'banner', variant: other },
        },
      ],
    });
    const switcher = (await exposures()).filter((e) => e.unit === 'switcher');
    expect(switcher).toEqual([expect.objectContaining({ variant: first.variant, multiple: true })]);
  });
});
