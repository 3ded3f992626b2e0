import { beforeEach, describe, expect, it } from 'vitest';
import { ApiKeyAuthentication } from '../../src/access/api-key-authentication.ts';
import type { Clock } from '../../src/domain/clock.ts';
import type { Project } from '../../src/domain/project.ts';
import { ServerSecret } from '../../src/domain/server-secret.ts';
import { KeyRegistry } from '../../src/plane/key-registry.ts';
import { ApiKeyService } from '../../src/services/access/api-key-service.ts';
import { createProject } from '../../src/services/projects/project-service.ts';
import { anActor, refusedWith } from './fakes/actors.ts';
import { InMemoryApiKeyStore } from './fakes/in-memory-api-key-store.ts';

const NOW = Date.parse('2026-03-04T05:06:07.000Z');
const clock: Clock = () => NOW;
const admin = anActor('admin');

describe('ApiKeyService over an in-memory store', () => {
  let store: InMemoryApiKeyStore;
  let keys: ApiKeyService;
  let project: Project;

  beforeEach(async () => {
    store = new InMemoryApiKeyStore();
    const registry = new KeyRegistry(store);
    const serverSecret = ServerSecret.fromText(ServerSecret.generateText());
    const authentication = new ApiKeyAuthentication(registry, clock, serverSecret);
    keys = new ApiKeyService(store, { clock, registry, authentication, serverSecret });
    project = await createProject(
      store,
      admin,
      { key: 'checkout', environments: [{ key: 'staging' }, { key: 'production' }] },
      clock,
    );
  });

  it('answers a new key its secret once, which then authenticates as the key, and audits the creation without it', async () => {
    const created = await keys.create(admin, 'checkout', {
      name: 'CI',
      role: 'editor',
      environments: ['staging'],
    });

    expect(await keys.authenticate(created.secret)).toMatchObject({
      id: created.id,
      role: 'editor',
      projectId: project.id,
      environments: ['staging'],
    });
    expect((await keys.list(admin, 'checkout', { limit: 10 })).items).toEqual([
      expect.not.objectContaining({ secret: expect.anything() }),
    ]);
    const event = store.audit.find((e) => e.event.action === 'api_key.created');
    expect(event?.projectId).toBe(project.id);
    expect(JSON.stringify(event)).not.toContain(created.secret);
  });

  it('refuses a key for an environment the project lacks, naming it, and stores nothing', async () => {
    await expect(
      keys.create(admin, 'checkout', { name: 'CI', role: 'viewer', environments: ['production', 'qa'] }),
    ).rejects.toMatchObject({
      ...refusedWith('validation_failed'),
      errors: [{ path: '/environments/1', message: 'no environment "qa" in this project' }],
    });
    expect((await keys.list(admin, 'checkout', { limit: 10 })).items).toEqual([]);
  });

  it('refuses a key that would already be expired', async () => {
    await expect(
      keys.create(admin, 'checkout', { name: 'CI', role: 'viewer', expiresAt: new Date(NOW).toISOString() }),
    ).rejects.toMatchObject({ ...refusedWith('validation_failed'), errors: [{ path: '/expiresAt' }] });
  });

  it('refuses to make a key with more power than its maker has', async () => {
    const stagingAdmin = anActor('admin', { projectId: project.id, environments: ['staging'] });
    const editor = anActor('editor', { projectId: project.id });

    await expect(
      keys.create(stagingAdmin, 'checkout', { name: 'All', role: 'viewer' }),
    ).rejects.toMatchObject(refusedWith('forbidden'));
    await expect(keys.create(editor, 'checkout', { name: 'Up', role: 'admin' })).rejects.toMatchObject(
      refusedWith('forbidden'),
    );
    const own = await keys.create(stagingAdmin, 'checkout', {
      name: 'Mine',
      role: 'viewer',
      environments: ['staging'],
    });
    expect(own.environments).toEqual(['staging']);
  });

  it('lets only organisation admins see and make organisation-wide keys', async () => {
    const projectAdmin = anActor('admin', { projectId: project.id });

    await expect(keys.list(projectAdmin, null, { limit: 10 })).rejects.toMatchObject(
      refusedWith('forbidden'),
    );
    await expect(keys.create(projectAdmin, null, { name: 'Org', role: 'viewer' })).rejects.toMatchObject(
      refusedWith('forbidden'),
    );
    await keys.create(admin, null, { name: 'Org', role: 'viewer' });
    expect((await keys.list(admin, null, { limit: 10 })).items.map((k) => k.name)).toEqual(['Org']);
  });

  it('revokes a key: its secret no longer authenticates, and a second revoke changes nothing', async () => {
    const created = await keys.create(admin, 'checkout', { name: 'CI', role: 'viewer' });

    await keys.revoke(admin, created.id);
    await keys.revoke(admin, created.id);

    expect(await keys.authenticate(created.secret)).toBeUndefined();
    expect(store.audit.filter((e) => e.event.action === 'api_key.revoked')).toHaveLength(1);
    await expect(keys.revoke(admin, 'key_unknown')).rejects.toMatchObject(refusedWith('not_found'));
  });
});
