import { afterAll, beforeAll, expect, it } from 'vitest';
import { compareEnvironments, copyPatch } from '../../dashboard/src/pages/flag/environment-copy.ts';
import type { Flag } from '../../src/domain/flag.ts';
import { ADMIN_KEY, createKey, type Harness, startHarness } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';

// Copying a flag's environment over another (docs/decisions/1811) is the dashboard's PATCH with
// If-Match: held to the server here, so the target then evaluates exactly as the source, and a
// guarded target gets a change request instead.

const USERS = [
  { targetingKey: 'ada', country: 'NL' },
  { targetingKey: 'bob', country: 'BE' },
  { targetingKey: 'cy', country: 'DE', accountId: 'acme' },
  { targetingKey: 'dee' },
  { country: 'NL' },
];

describeEachDatabase("copying one environment's settings of a flag to another", (database) => {
  let node: Harness;
  let editorKey: string;
  let flagId: string;

  const admin = async (method: string, url: string, body?: unknown) => {
    const res = await node.call(method, url, { body });
    expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };
  const flag = (): Promise<Flag> => admin('GET', '/v1/projects/default/flags/banner');
  /** What every user gets in `environment`: value, variant and reason. */
  const served = (environment: string) =>
    Promise.all(
      USERS.map(async (attributes) => {
        const res = await node.call('POST', '/v1/flags/banner/evaluate?project=default', {
          body: { environment, attributes },
        });
        const { value, variant, reason } = res.body;
        return { value, variant, reason };
      }),
    );
  const copy = async (source: string, target: string, key: string) => {
    const current = await flag();
    return node.call('PATCH', `/v1/flags/${current.id}`, {
      key,
      body: copyPatch(current, source, target),
      headers: { 'if-match': `"${current.version}"` },
    });
  };

  beforeAll(async () => {
    node = await startHarness(database);
    await admin('POST', '/v1/projects/default/environments', { key: 'staging' });
    await admin('POST', '/v1/projects/default/segments', { key: 'beta', included: ['bob'] });
    await admin('POST', '/v1/projects/default/flags', { key: 'platform' });
    // A prerequisite is evaluated in the environment at hand: copying does not copy its state.
    await admin('PATCH', '/v1/projects/default/flags/platform', {
      environments: {
        staging: { enabled: true },
        development: { enabled: true },
        production: { enabled: true },
      },
    });
    flagId = (await admin('POST', '/v1/projects/default/flags', { key: 'banner' })).id;
    await admin('PATCH', `/v1/flags/${flagId}`, {
      environments: {
        staging: {
          enabled: true,
          defaultRollout: {
            weights: [
              { variant: 'on', weight: 1 },
              { variant: 'off', weight: 3 },
            ],
          },
          targets: [{ variant: 'on', values: ['dee'] }],
          rules: [
            { description: 'Beta', segments: ['beta'], serve: { variant: 'on' } },
            {
              conditions: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
              serve: { variant: 'off' },
            },
          ],
          prerequisites: [{ flag: 'platform', variants: ['on'] }],
        },
        development: { enabled: true, defaultVariant: 'off' },
        production: {
          enabled: true,
          defaultRollout: {
            bucketBy: 'accountId',
            seed: 'another',
            weights: [
              { variant: 'on', weight: 1 },
              { variant: 'off', weight: 1 },
            ],
          },
          rules: [{ matchAll: true, serve: { variant: 'off' } }],
        },
      },
    });
    await admin('PATCH', '/v1/projects/default/environments/production', { requiredApprovals: 1 });
    const projectId = (await admin('GET', '/v1/projects/default')).id;
    editorKey = (await createKey(node.services, projectId, 'editor', null, { name: 'editor' })).secret;
  });
  afterAll(() => node?.close());

  it('copies to an environment without approvals at once: it then reads and evaluates as the source', async () => {
    expect(compareEnvironments(await flag(), 'staging', 'development').some((r) => !r.same)).toBe(true);
    const res = await copy('staging', 'development', editorKey);
    expect(res.status, res.text).toBe(200);
    expect(compareEnvironments(res.body, 'staging', 'development').filter((r) => !r.same)).toEqual([]);
    expect(await served('development')).toEqual(await served('staging'));
    // Only the target changed.
    expect(res.body.environments.staging).toEqual((await flag()).environments.staging);
  });

  it('becomes a change request for a guarded target, and once applied the target evaluates as the source', async () => {
    const before = await served('production');
    const res = await copy('staging', 'production', editorKey);
    expect(res.status, res.text).toBe(202);
    expect(res.headers.location).toBe(`/v1/change-requests/${res.body.id}`);
    expect(await served('production')).toEqual(before);

    await admin('POST', `/v1/change-requests/${res.body.id}/apply`);
    // The rollout that bucketed by accountId with its own seed now buckets as staging's does.
    expect(compareEnvironments(await flag(), 'staging', 'production').filter((r) => !r.same)).toEqual([]);
    expect(await served('production')).toEqual(await served('staging'));
  });

  it('refuses a copy made from a version someone has changed since', async () => {
    const stale = await flag();
    await admin('PATCH', `/v1/flags/${flagId}?environment=development`, { enabled: false });
    const res = await node.call('PATCH', `/v1/flags/${flagId}`, {
      key: ADMIN_KEY,
      body: copyPatch(stale, 'staging', 'development'),
      headers: { 'if-match': `"${stale.version}"` },
    });
    expect(res.status).toBe(412);
    expect((await flag()).environments.development?.enabled).toBe(false);
  });
});
