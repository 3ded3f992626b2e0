import { beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/domain/clock.ts';
import { SnapshotRegistry } from '../../src/plane/snapshots.ts';
import { ProjectService } from '../../src/services/projects/project-service.ts';
import { anActor, refusedWith } from './fakes/actors.ts';
import { InMemoryProjectStore } from './fakes/in-memory-project-store.ts';

const clock: Clock = () => Date.parse('2026-03-04T05:06:07.000Z');
const admin = anActor('admin');

describe('ProjectService over an in-memory store', () => {
  let store: InMemoryProjectStore;
  let projects: ProjectService;

  beforeEach(() => {
    store = new InMemoryProjectStore();
    projects = new ProjectService({ store, snapshots: new SnapshotRegistry(store, clock), clock });
  });

  it('creates a project with the default environments, the protected ones protected, and audits it once', async () => {
    const project = await projects.create(admin, { key: 'checkout' });

    const environments = await store.listEnvironments(project.id);
    expect(environments.map((e) => [e.key, e.protected])).toEqual([
      ['development', false],
      ['production', true],
    ]);
    expect(store.audit.map(({ projectId, event }) => [projectId, event.action, event.actor.id])).toEqual([
      [project.id, 'project.created', admin.principal.id],
    ]);
    expect(store.audit[0]?.event.after).toMatchObject({ environments: ['development', 'production'] });
  });

  it('refuses a project without environments, or with one key twice, storing nothing', async () => {
    await expect(projects.create(admin, { key: 'empty', environments: [] })).rejects.toMatchObject(
      refusedWith('validation_failed'),
    );
    await expect(
      projects.create(admin, { key: 'twice', environments: [{ key: 'live' }, { key: 'live' }] }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      errors: [{ path: '/environments', message: '"live" appears twice' }],
    });

    expect((await store.listProjects({ limit: 10 })).items).toEqual([]);
    expect(store.audit).toEqual([]);
  });

  it('answers a taken key with a conflict, keeping the first project and its log alone', async () => {
    const first = await projects.create(admin, { key: 'checkout', environments: [{ key: 'live' }] });

    await expect(projects.create(admin, { key: 'checkout' })).rejects.toMatchObject(refusedWith('conflict'));

    expect((await store.listProjects({ limit: 10 })).items).toEqual([first]);
    expect(await store.listEnvironments(first.id)).toHaveLength(1);
    expect(store.audit).toHaveLength(1);
  });

  it('lets only organisation-wide admins create projects', async () => {
    const own = await projects.create(admin, { key: 'own' });

    for (const actor of [anActor('editor'), anActor('admin', { projectId: own.id })]) {
      await expect(projects.create(actor, { key: 'another' })).rejects.toMatchObject(
        refusedWith('forbidden'),
      );
    }
    expect((await store.listProjects({ limit: 10 })).items.map((p) => p.key)).toEqual(['own']);
  });

  it('lists every project to an organisation-wide key, and only its own to a project key', async () => {
    const [a, b] = [await projects.create(admin, { key: 'a' }), await projects.create(admin, { key: 'b' })];

    expect((await projects.list(anActor('viewer'), { limit: 10 })).items).toEqual([a, b]);
    expect((await projects.list(anActor('viewer', { projectId: b.id }), { limit: 10 })).items).toEqual([b]);
    await expect(projects.get(anActor('viewer', { projectId: b.id }), 'a')).rejects.toMatchObject(
      refusedWith('forbidden'),
    );
  });

  it('patches name and description with a new version, refuses a stale If-Match, and audits before and after', async () => {
    const project = await projects.create(admin, { key: 'checkout', name: 'Checkout' });

    await expect(projects.patch(admin, 'checkout', { name: 'Stale' }, { ifMatch: 7 })).rejects.toMatchObject(
      refusedWith('precondition_failed'),
    );
    const patched = await projects.patch(
      admin,
      'checkout',
      { name: 'Shop', description: null },
      { ifMatch: 1 },
    );

    expect(patched).toMatchObject({ name: 'Shop', description: '', version: 2 });
    expect(await store.findProject(project.id)).toStrictEqual(patched);
    const updated = store.audit.filter(({ event }) => event.action === 'project.updated');
    expect(updated.map(({ event }) => [event.before, event.after])).toEqual([[project, patched]]);
  });

  it('refuses a patch from an editor, changing nothing', async () => {
    const project = await projects.create(admin, { key: 'checkout' });

    await expect(projects.patch(anActor('editor'), 'checkout', { name: 'Shop' }, {})).rejects.toMatchObject(
      refusedWith('forbidden'),
    );
    expect(await store.findProject(project.id)).toStrictEqual(project);
  });

  it('deletes a project with its environments, its deletion logged in the organisation log', async () => {
    const project = await projects.create(admin, { key: 'checkout' });

    await projects.delete(admin, 'checkout', {});

    expect(await store.findProject('checkout')).toBeUndefined();
    expect(await store.listEnvironments(project.id)).toEqual([]);
    expect(store.audit.at(-1)).toMatchObject({ projectId: null, event: { action: 'project.deleted' } });
  });
});
