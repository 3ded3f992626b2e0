import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { flagBody } from '../support/requests.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// PATCH /v1/flags/{id} is a JSON merge patch (RFC 7396, docs/product.md §4) of the flag and of its
// configuration per environment: absent keeps a field, null removes it (it takes its default),
// a value replaces it; a rollout merges field by field; JsonLogic targeting is replaced whole.

describeEachDatabase('a flag patch merges field by field', (database) => {
  let server: TestServer;
  let flagId: string;

  const patch = (body: Record<string, unknown>, environment = 'production') =>
    server.call('PATCH', `/v1/flags/${flagId}?environment=${environment}`, { body });
  const production = async (body: Record<string, unknown>) => {
    const res = await patch(body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.environments.production;
  };

  beforeAll(async () => {
    server = await startTestServer(database);
    await server.call('POST', '/v1/projects', { body: { key: 'merge' } });
    const flag = await server.call('POST', '/v1/projects/merge/flags', {
      body: { ...flagBody('banner', 'string', { a: 'A', b: 'B' }), metadata: { team: 'web', ticket: 12 } },
    });
    flagId = flag.body.id;
  });
  afterAll(() => server.close());

  it('merges a rollout field by field, and null removes it', async () => {
    const weights = [
      { variant: 'a', weight: 1 },
      { variant: 'b', weight: 1 },
    ];
    expect(
      await production({ defaultRollout: { bucketBy: 'accountId', seed: 's1', weights } }),
    ).toMatchObject({
      defaultRollout: { bucketBy: 'accountId', seed: 's1', weights },
    });
    const reweighted = [{ variant: 'b', weight: 3 }, weights[0]];
    const merged = await production({ defaultRollout: { weights: reweighted } });
    expect(merged.defaultRollout).toEqual({ bucketBy: 'accountId', seed: 's1', weights: reweighted });
    expect(await production({ defaultRollout: null })).not.toHaveProperty('defaultRollout');
  });

  it('null gives a field its default: no variant, no targets, no rules; an absent field is kept', async () => {
    await production({
      enabled: true,
      offVariant: 'b',
      targets: [{ variant: 'a', values: ['alice'] }],
      rules: [
        {
          conditions: [{ type: 'attribute', attribute: 'plan', operator: 'equals', value: 'pro' }],
          serve: { variant: 'b' },
        },
      ],
    });
    const cleared = await production({ offVariant: null, targets: null, rules: null });
    expect(cleared).toMatchObject({ enabled: true, offVariant: null, targets: [], rules: [] });
    expect(cleared.defaultVariant).toBe('a');
  });

  it('gives new rules an id and keeps the id of a rule sent back', async () => {
    const rule = { matchAll: true, serve: { variant: 'b' } };
    const [created] = (await production({ rules: [rule] })).rules;
    expect(created).toMatchObject({ ...rule, segments: [], conditions: [] });
    expect(created.id).toEqual(expect.any(String));
    const [kept, added] = (await production({ rules: [created, { ...rule, serve: { variant: 'a' } }] }))
      .rules;
    expect(kept.id).toBe(created.id);
    expect(added.id).not.toBe(created.id);
  });

  it('replaces JsonLogic targeting whole, and null removes it', async () => {
    await production({ rules: null });
    const first = { if: [{ '==': [{ var: 'plan' }, 'pro'] }, 'b', 'a'] };
    expect((await production({ targeting: first })).targeting).toEqual(first);
    const second = { if: [{ in: [{ var: 'email' }, ['x@example.com']] }, 'a', null] };
    expect((await production({ targeting: second })).targeting).toEqual(second);
    expect(await production({ targeting: null })).not.toHaveProperty('targeting');
  });

  it('patches several environments at once, and flag fields beside them', async () => {
    const res = await patch({
      description: 'Top banner',
      tags: ['web'],
      metadata: { ticket: null, owner: 'ana' },
      environments: { development: { enabled: true }, production: { defaultVariant: 'b' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      description: 'Top banner',
      tags: ['web'],
      metadata: { team: 'web', owner: 'ana' },
    });
    expect(res.body.metadata).not.toHaveProperty('ticket');
    expect(res.body.environments.development.enabled).toBe(true);
    expect(res.body.environments.production.defaultVariant).toBe('b');
    const cleared = await patch({ description: null, tags: null });
    expect(cleared.body).toMatchObject({ description: '', tags: [] });
  });
});
