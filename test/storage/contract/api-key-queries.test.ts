import { expect, it } from 'vitest';
import type { ApiKey } from '../../../src/domain/api-key.ts';
import { type Store, type StoredApiKey, UniqueViolation } from '../../../src/storage/store.ts';
import { describeEachDatabase } from '../../support/database.ts';
import { anApiKey, everyPage, givenProject, keyByHash, openStoreEachTest, UPDATED } from './support.ts';

describeEachDatabase('Store contract: API keys', (database) => {
  let store!: Store;
  openStoreEachTest(database, (opened) => {
    store = opened;
  });

  // API keys

  it('finds API keys by their secret hashes, hashes included, skipping unknown ones', async () => {
    const { project } = await givenProject(store, 'checkout');
    const key = anApiKey(project.id, {
      role: 'evaluator',
      environments: ['production', 'staging'],
      expiresAt: '2027-01-01T00:00:00.000Z',
    });
    const orgKey = anApiKey(null, { role: 'admin' });
    const unasked = anApiKey(project.id);
    for (const k of [key, orgKey, unasked]) await store.insertApiKey(k);

    const found = await store.findApiKeysByHash([key.secretHash, 'hash-of-nothing', orgKey.secretHash]);
    expect([...found].sort((a, b) => a.id.localeCompare(b.id))).toStrictEqual([key, orgKey]);
    expect(await store.findApiKeysByHash(['hash-of-nothing'])).toStrictEqual([]);
    expect(await store.findApiKeysByHash([])).toStrictEqual([]);
  });

  it('finds an API key by id without its secret hash', async () => {
    const { project } = await givenProject(store, 'checkout');
    const { secretHash, ...key } = anApiKey(project.id, { role: 'editor' });
    await store.insertApiKey({ ...key, secretHash });

    const found = await store.findApiKeyById(key.id);

    expect(found).toStrictEqual(key);
    expect(JSON.stringify(found)).not.toContain(secretHash);
    expect(await store.findApiKeyById('key_unknown')).toBeUndefined();
  });

  it("lists a project's API keys in creation order without their secret hashes, a page at a time", async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    const keys = Array.from({ length: 5 }, (_, i) => anApiKey(project.id, { name: `z-${5 - i}` }));
    for (const key of keys) await store.insertApiKey(key);
    await store.insertApiKey(anApiKey(other.project.id));
    await store.insertApiKey(anApiKey(null, { role: 'admin' }));

    const pages = await everyPage((page) => store.listApiKeys(project.id, page), 2);

    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.nextCursor !== undefined)).toEqual([true, true, false]);
    const listed: ApiKey[] = pages.flatMap((p) => p.items);
    expect(listed).toStrictEqual(keys.map(({ secretHash: _, ...key }) => key));
    for (const key of keys) expect(JSON.stringify(listed)).not.toContain(key.secretHash);
  });

  it('lists only the organisation-wide API keys when asked for project null', async () => {
    const { project } = await givenProject(store, 'checkout');
    const orgKeys = [anApiKey(null, { role: 'admin' }), anApiKey(null, { role: 'viewer' })];
    await store.insertApiKey(orgKeys[0]!);
    await store.insertApiKey(anApiKey(project.id));
    await store.insertApiKey(orgKeys[1]!);

    const { items, nextCursor } = await store.listApiKeys(null, { limit: 10 });

    expect(nextCursor).toBeUndefined();
    expect(items).toStrictEqual(orgKeys.map(({ secretHash: _, ...key }) => key));
  });

  it('refuses a second API key with the same secret hash with UniqueViolation', async () => {
    const first = anApiKey(null);
    await store.insertApiKey(first);

    await expect(store.insertApiKey(anApiKey(null, { secretHash: first.secretHash }))).rejects.toBeInstanceOf(
      UniqueViolation,
    );
    expect((await store.listApiKeys(null, { limit: 10 })).items).toHaveLength(1);
  });

  it('records when an API key was revoked, and leaves other keys alone', async () => {
    const revoked = anApiKey(null);
    const kept = anApiKey(null);
    await store.insertApiKey(revoked);
    await store.insertApiKey(kept);

    await store.revokeApiKey(revoked.id, UPDATED);

    expect(await keyByHash(store, revoked.secretHash)).toStrictEqual({
      ...revoked,
      revokedAt: UPDATED,
    });
    expect(await store.findApiKeyById(revoked.id)).toMatchObject({ revokedAt: UPDATED });
    expect(await keyByHash(store, kept.secretHash)).toStrictEqual(kept);
  });

  it('records the last use of many API keys at once, ignoring unknown ids and leaving the others alone', async () => {
    const keys = Array.from({ length: 4 }, () => anApiKey(null));
    for (const key of keys) await store.insertApiKey(key);
    const [first, second, third, untouched] = keys as [
      StoredApiKey,
      StoredApiKey,
      StoredApiKey,
      StoredApiKey,
    ];

    await store.touchApiKeys(
      new Map([
        [first.id, '2026-03-01T00:00:00.000Z'],
        [second.id, '2026-03-02T00:00:00.000Z'],
        [third.id, '2026-03-03T00:00:00.000Z'],
        ['key_unknown', '2026-03-04T00:00:00.000Z'],
      ]),
    );
    await store.touchApiKeys(new Map());

    expect((await store.listApiKeys(null, { limit: 10 })).items.map((k) => k.lastUsedAt)).toEqual([
      '2026-03-01T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
      '2026-03-03T00:00:00.000Z',
      null,
    ]);
    expect(await keyByHash(store, untouched.secretHash)).toStrictEqual(untouched);
  });
});
