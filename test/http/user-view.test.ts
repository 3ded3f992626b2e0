import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN_KEY,
  type DashboardServer,
  inviteAndJoin,
  startDashboardServer,
} from '../dashboard/support.ts';
import { BANNER_IN_PRODUCTION } from '../support/banner-rules.ts';
import { describeEachDatabase } from '../support/database.ts';

// The user view (docs/decisions/1810): every flag for one context, each with what decided it,
// for anyone who may read the project, signed in or by key, and counted nowhere.

describeEachDatabase('the user view: POST /v1/projects/{p}/explain', (database) => {
  let server: DashboardServer;
  let viewer: string;
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await server.call(method, path, { key: ADMIN_KEY, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const view = (attributes: Record<string, unknown>, environment = 'production') =>
    server.call('POST', '/v1/projects/shop/explain', { cookie: viewer, body: { environment, attributes } });

  beforeAll(async () => {
    server = await startDashboardServer({ database });
    await admin('POST', '/v1/projects', { key: 'shop' });
    await admin('POST', '/v1/projects/shop/segments', { key: 'beta', included: ['ada'] });
    const banner = await admin('POST', '/v1/projects/shop/flags', { key: 'banner', name: 'Banner' });
    await admin('PATCH', `/v1/flags/${banner.id}?environment=production`, BANNER_IN_PRODUCTION);
    const vip = await admin('POST', '/v1/projects/shop/flags', { key: 'vip', name: 'VIP' });
    await admin('PATCH', `/v1/flags/${vip.id}?environment=production`, {
      enabled: true,
      targets: [{ variant: 'on', values: ['ada'] }],
      defaultVariant: 'off',
    });
    await admin('POST', '/v1/projects/shop/flags', { key: 'checkout', name: 'Checkout' });
    const retired = await admin('POST', '/v1/projects/shop/flags', { key: 'retired' });
    await admin('PATCH', `/v1/flags/${retired.id}`, { archived: true });
    const signedIn = await server.signIn();
    ({ cookie: viewer } = await inviteAndJoin(
      server,
      signedIn,
      { email: 'vera@example.com', role: 'viewer', project: 'shop' },
      { name: 'Vera', password: 'a long enough password' },
    ));
  });
  afterAll(() => server?.close());

  it('answers every live flag for the context with its value, variant, reason and what decided it', async () => {
    const res = await view({ targetingKey: 'ada', country: 'BE' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.environment).toBe('production');
    expect(res.body.flags.map((f: { key: string }) => f.key)).toEqual(['banner', 'checkout', 'vip']);
    const [banner, checkout, vip] = res.body.flags;
    expect(banner).toMatchObject({
      name: 'Banner',
      value: true,
      variant: 'on',
      reason: 'targeting',
      targetMatched: false,
      rule: { number: 2, description: 'Beta testers', segments: ['beta'], conditions: [], matchAll: false },
    });
    expect(banner.ruleId).toBe(banner.rule.id);
    expect(checkout).toMatchObject({ value: false, variant: 'off', reason: 'disabled', rule: null });
    expect(vip).toMatchObject({ value: true, reason: 'targeting', targetMatched: true, rule: null });
  });

  it('names the conditions of the rule that matched, and follows the context', async () => {
    const dutch = await view({ targetingKey: 'bob', country: 'NL' });
    expect(dutch.body.flags[0].rule).toMatchObject({
      number: 1,
      description: 'Dutch shoppers',
      conditions: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
    });
    const nobody = await view({ targetingKey: 'bob' });
    expect(nobody.body.flags[0]).toMatchObject({ variant: 'off', reason: 'default', rule: null });
    // Another environment: every flag there is still off.
    const development = await view({ targetingKey: 'ada', country: 'NL' }, 'development');
    expect(development.body.flags.map((f: { reason: string }) => f.reason)).toEqual([
      'disabled',
      'disabled',
      'disabled',
    ]);
  });

  it('is not an evaluation an application was served: insights count none of it', async () => {
    for (let i = 0; i < 3; i++) expect((await view({ targetingKey: `u${i}` })).status).toBe(200);
    await server.services.insights.flush();
    const banner = await admin('GET', '/v1/projects/shop/flags/banner');
    expect(banner.lastEvaluatedAt.production ?? null).toBeNull();
  });

  it('refuses bad input with a 400 that names the field, and an unknown environment with a 404', async () => {
    const bad = await server.call('POST', '/v1/projects/shop/explain', {
      cookie: viewer,
      body: { attributes: ['not', 'an', 'object'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/attributes');
    expect((await view({}, 'nowhere')).status).toBe(404);
  });
});
