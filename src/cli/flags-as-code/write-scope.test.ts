import { describe, expect, it } from 'vitest';
import type { PlannedResource, PlannedWrite } from './plan.ts';
import { outsideProject } from './write-scope.ts';

describe('outsideProject', () => {
  it.each<[PlannedResource['kind'], PlannedWrite]>([
    ['project', { method: 'POST', path: '/v1/projects', body: { key: 'shop' } }],
    ['project', { method: 'PATCH', path: '/v1/projects/shop', body: {} }],
    ['environment', { method: 'POST', path: '/v1/projects/shop/environments', body: {} }],
    ['environment', { method: 'PATCH', path: '/v1/projects/shop/environments/production', body: {} }],
    ['environment', { method: 'DELETE', path: '/v1/projects/shop/environments/staging' }],
    ['segment', { method: 'POST', path: '/v1/projects/shop/segments', body: {} }],
    ['segment', { method: 'PATCH', path: '/v1/segments/seg_1', body: {} }],
    ['flag', { method: 'POST', path: '/v1/projects/shop/flags', body: {} }],
    ['flag', { method: 'PATCH', path: '/v1/flags/{id}', body: {} }],
    ['flag', { method: 'PATCH', path: '/v1/flags/flg_1?environment=production', body: {} }],
    ['flag', { method: 'DELETE', path: '/v1/flags/flg_1' }],
  ])('lets a %s resource of project shop send %j', (kind, write) => {
    expect(outsideProject('shop', kind, write)).toBeUndefined();
  });

  it.each<[PlannedResource['kind'], PlannedWrite]>([
    ['flag', { method: 'POST', path: '/v1/change-requests/chr_1/approve', body: {} }],
    ['flag', { method: 'PATCH', path: '/v1/projects/other/flags/checkout', body: {} }],
    ['flag', { method: 'POST', path: '/v1/projects/other/flags', body: {} }],
    ['flag', { method: 'PATCH', path: '/v1/segments/seg_1', body: {} }],
    ['flag', { method: 'PATCH', path: '/v1/flags/flg_1/../../api-keys', body: {} }],
    ['flag', { method: 'PATCH', path: '/v1/flags/..?environment=production', body: {} }],
    ['segment', { method: 'DELETE', path: '/v1/segments/%2E%2e' }],
    ['segment', { method: 'DELETE', path: '/v1/projects/shop' }],
    ['project', { method: 'POST', path: '/v1/projects', body: { key: 'other' } }],
    ['project', { method: 'POST', path: '/v1/projects/shop/api-keys', body: { role: 'admin' } }],
    ['environment', { method: 'PATCH', path: '/v1/projects/shopping/environments/production', body: {} }],
  ])('refuses a %s resource of project shop sending %j', (kind, write) => {
    expect(outsideProject('shop', kind, write)).toContain(
      `${write.method} ${write.path} is not a write of project shop`,
    );
  });
});
