import { LOCAL_ACCOUNT } from '../../src/domain/account.ts';
import type { Flag } from '../../src/domain/flag.ts';
import { newId } from '../../src/domain/ids.ts';
import type { Store, StoreRoles } from '../../src/storage/store.ts';
import { buildFlag, buildSegment } from './builders.ts';

/** The key of the i-th of many flags, `flag-00042`: key order is number order. */
export const manyFlagKey = (i: number, digits = 5) => `flag-${String(i).padStart(digits, '0')}`;

/** The key of the i-th of many segments, `segment-00042`: key order is number order. */
export const manySegmentKey = (i: number, digits = 5) => `segment-${String(i).padStart(digits, '0')}`;

/** The email of the i-th of many accounts, `person-00042@example.com`: creation order is number order. */
export const manyAccountEmail = (i: number, digits = 5) =>
  `person-${String(i).padStart(digits, '0')}@example.com`;

/** `count` rows stored in one transaction, as a large project's would be and far faster than through the API. */
async function storeMany(
  store: Store,
  count: number,
  insert: (tx: StoreRoles, i: number) => Promise<void>,
): Promise<void> {
  await store.transaction(async (tx) => {
    for (let i = 0; i < count; i++) await insert(tx, i);
  });
}

/**
 * `count` flags of one project, stored at once: the i-th is keyed `keyOf(i)`, named `Flag i`,
 * with the fields `fields(i)` gives (its environments, at least).
 */
export function storeManyFlags(
  store: Store,
  projectId: string,
  count: number,
  fields: (i: number) => Partial<Flag>,
  keyOf: (i: number) => string = manyFlagKey,
): Promise<void> {
  return storeMany(store, count, (tx, i) =>
    tx.insertFlag(buildFlag(keyOf(i), { id: newId('flg'), projectId, name: `Flag ${i}`, ...fields(i) })),
  );
}

/** `count` segments of one project, stored at once: the i-th keyed `keyOf(i)` and named `Segment i`. */
export function storeManySegments(
  store: Store,
  projectId: string,
  count: number,
  keyOf: (i: number) => string = manySegmentKey,
): Promise<void> {
  return storeMany(store, count, (tx, i) =>
    tx.insertSegment(buildSegment(keyOf(i), { id: newId('seg'), projectId, name: `Segment ${i}` })),
  );
}

/**
 * `count` organisation-wide viewer accounts, stored at once in creation order, as an organisation
 * provisioned over SCIM would hold them: the i-th has the email `manyAccountEmail(i, digits)` and
 * is named `Person i`. None can sign in with a password.
 */
export function storeManyAccounts(store: Store, count: number, digits = 5): Promise<void> {
  const createdAt = new Date().toISOString();
  return storeMany(store, count, (tx, i) =>
    tx.insertAccount({
      id: newId('acc'),
      email: manyAccountEmail(i, digits),
      name: `Person ${i}`,
      passwordHash: '',
      role: 'viewer',
      projectId: null,
      createdAt,
      lastLoginAt: null,
      version: 1,
      ...LOCAL_ACCOUNT,
    }),
  );
}
