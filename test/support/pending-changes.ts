import type { ChangeRequest } from '../../src/domain/change-request.ts';
import type { ScheduledChange } from '../../src/domain/scheduled-change.ts';
import type { Store } from '../../src/storage/store.ts';
import { buildEnvironment, buildFlag, buildProject, buildSegment } from './builders.ts';

// Change requests and scheduled changes as storage tests build them: every field, alphabetical,
// of project `prj_m` and flag `flg_x`, with what a test cares about as overrides.

const AT = '2026-01-01T00:00:00.000Z';
export const ANN = { type: 'user' as const, id: 'acc_ann', name: 'Ann' };
export const BOB = { type: 'api_key' as const, id: 'key_bob', name: 'Bob' };

/** An open request to switch production on, made by Ann against version 1. */
export const aChangeRequest = (id: string, fields: Partial<ChangeRequest> = {}): ChangeRequest => ({
  approvals: [],
  author: ANN,
  baseVersion: 1,
  changes: [{ path: '/environments/production/enabled', before: false, after: true }],
  comment: '',
  conflict: null,
  createdAt: AT,
  decidedBy: null,
  environment: 'production',
  environments: ['production'],
  failure: null,
  flagId: 'flg_x',
  id,
  kind: 'flag.patch',
  patch: { enabled: true },
  projectId: 'prj_m',
  requiredApprovals: 1,
  segmentId: null,
  status: 'open',
  updatedAt: AT,
  version: 1,
  ...fields,
});

/** A pending change switching production on at `at`, scheduled by Ann (an editor). */
export const aScheduledChange = (
  id: string,
  at: string,
  fields: Partial<ScheduledChange> = {},
): ScheduledChange => ({
  at,
  author: { ...ANN, role: 'editor', projectId: 'prj_m', environments: null },
  comment: '',
  createdAt: AT,
  environment: 'production',
  failure: null,
  flagId: 'flg_x',
  id,
  patch: { enabled: true },
  projectId: 'prj_m',
  settledAt: null,
  status: 'pending',
  ...fields,
});

/** What the requests and changes above name: project `m` (`prj_m`) with production and staging, flags `x` and `y`, segment `s`. */
export async function givenProjectM(
  store: Pick<Store, 'insertProject' | 'insertEnvironment' | 'insertFlag' | 'insertSegment'>,
): Promise<void> {
  await store.insertProject(buildProject('m', { id: 'prj_m' }));
  await store.insertEnvironment(buildEnvironment('prj_m', 'production', { id: 'env_p' }));
  await store.insertEnvironment(buildEnvironment('prj_m', 'staging', { id: 'env_s' }));
  await store.insertFlag(buildFlag('x', { id: 'flg_x', projectId: 'prj_m' }));
  await store.insertFlag(buildFlag('y', { id: 'flg_y', projectId: 'prj_m' }));
  await store.insertSegment(buildSegment('s', { id: 'seg_s', projectId: 'prj_m' }));
}
