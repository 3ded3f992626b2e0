import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_KEY, createKey, type Harness, startHarness } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { syncSelectorOf } from '../support/flagd-sync-client.ts';

// flagd's HTTP sync polls the export with the credential its gRPC sync selector carries
// (decision 1974): that one environment's document, nothing else.

describeEachDatabase("flagd's HTTP sync reads the export with a sync credential", (database) => {
  let node: Harness;
  let keyId: string;
  let credential: string;
  const EXPORT = '/v1/projects/default/environments/production/flagd';
  const exportWith = (key: string, path = EXPORT, headers: Record<string, string> = {}) =>
    node.call('GET', path, { key, headers });

  beforeAll(async () => {
    node = await startHarness(database);
    await node.call('POST', '/v1/projects/default/flags', { body: { key: 'checkout' } });
    await node.call('PATCH', '/v1/projects/default/flags/checkout?environment=production', {
      body: { enabled: true },
    });
    const projectId = (await node.call('GET', '/v1/projects/default')).body.id;
    const key = await createKey(node.services, projectId, 'evaluator', ['production'], { name: 'flagd' });
    keyId = key.id;
    const selector = await syncSelectorOf(
      (method, path) => node.call(method, path, { key: ADMIN_KEY }),
      keyId,
      'production',
    );
    credential = selector.slice(selector.indexOf('#') + 1);
  });
  afterAll(() => node?.close());

  it("answers the environment's document to an evaluator key's credential, with its ETag and 304", async () => {
    const res = await exportWith(credential);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body.flags)).toEqual(['checkout']);
    const again = await exportWith(credential, EXPORT, { 'if-none-match': String(res.headers.etag) });
    expect(again.status).toBe(304);
  });

  it('refuses it for another environment, on every other route, and once tampered with', async () => {
    expect((await exportWith(credential, '/v1/projects/default/environments/development/flagd')).status).toBe(
      401,
    );
    expect((await exportWith(credential, '/v1/projects/default/flags')).status).toBe(401);
    expect((await exportWith(credential, '/v1/projects/default/environments')).status).toBe(401);
    expect((await exportWith(`${credential.slice(0, -2)}xx`)).status).toBe(401);
  });

  it("an evaluator key's own secret still cannot read the export", async () => {
    const projectId = (await node.call('GET', '/v1/projects/default')).body.id;
    const other = await createKey(node.services, projectId, 'evaluator', ['production'], { name: 'app' });
    expect((await exportWith(other.secret)).status).toBe(403);
  });

  it('stops working when its key is revoked', async () => {
    expect((await node.call('DELETE', `/v1/api-keys/${keyId}`)).status).toBe(204);
    expect((await exportWith(credential)).status).toBe(401);
  });
});
