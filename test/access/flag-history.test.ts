import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { createKey, type Harness, startHarness } from './support.ts';

// Decision 1710: a flag's history is readable by anyone who may read the flag; the rest of the
// audit log stays an admin's.

describeEachDatabase("a flag's history for its readers", (database) => {
  let node: Harness;
  let flagId: string;
  let keys: { viewer: string; editor: string; evaluator: string; otherProject: string };

  beforeAll(async () => {
    node = await startHarness(database);
    const shop = (await node.call('POST', '/v1/projects', { body: { key: 'shop' } })).body;
    const other = (await node.call('POST', '/v1/projects', { body: { key: 'other' } })).body;
    flagId = (await node.call('POST', '/v1/projects/shop/flags', { body: { key: 'banner' } })).body.id;
    await node.call('POST', '/v1/projects/shop/flags', { body: { key: 'unrelated' } });
    await node.call('PATCH', `/v1/flags/${flagId}?environment=development`, { body: { enabled: true } });
    await node.call('PATCH', `/v1/flags/${flagId}`, { body: { name: 'The banner' } });
    keys = {
      viewer: (await createKey(node.services, shop.id, 'viewer')).secret,
      editor: (await createKey(node.services, shop.id, 'editor', ['development'])).secret,
      evaluator: (await createKey(node.services, shop.id, 'evaluator')).secret,
      otherProject: (await createKey(node.services, other.id, 'admin')).secret,
    };
  });
  afterAll(() => node?.close());

  it('lets a viewer and an editor read every version of the flag, newest first, and nothing else', async () => {
    for (const key of [keys.viewer, keys.editor]) {
      const res = await node.call('GET', `/v1/flags/${flagId}/history`, { key });
      expect(res.status, res.text).toBe(200);
      expect(res.body.map((e: { action: string }) => e.action)).toEqual([
        'flag.updated',
        'flag.updated',
        'flag.created',
      ]);
      expect(res.body.every((e: { resource: { id: string } }) => e.resource.id === flagId)).toBe(true);
      expect(res.body.map((e: { after: { version: number } }) => e.after.version)).toEqual([3, 2, 1]);
    }
  });

  it('pages with a Link to the next page', async () => {
    const first = await node.call('GET', `/v1/flags/${flagId}/history?limit=2`, { key: keys.viewer });
    expect(first.body).toHaveLength(2);
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1] as string;
    const second = await node.call('GET', next, { key: keys.viewer });
    expect(second.body.map((e: { action: string }) => e.action)).toEqual(['flag.created']);
  });

  it('keeps the rest of the audit log an admin’s', async () => {
    for (const key of [keys.viewer, keys.editor]) {
      expect((await node.call('GET', '/v1/projects/shop/audit-log', { key })).status).toBe(403);
    }
  });

  it('refuses an evaluator key, and answers 404 to another project’s key and for an unknown flag', async () => {
    expect((await node.call('GET', `/v1/flags/${flagId}/history`, { key: keys.evaluator })).status).toBe(403);
    expect((await node.call('GET', `/v1/flags/${flagId}/history`, { key: keys.otherProject })).status).toBe(
      404,
    );
    const unknown = await node.call('GET', '/v1/flags/flg_nothing/history', { key: keys.viewer });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/problem\+json/);
  });

  it('refuses a bad page size with a problem naming the field', async () => {
    const res = await node.call('GET', `/v1/flags/${flagId}/history?limit=0`, { key: keys.viewer });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toMatch(/limit/);
  });
});
