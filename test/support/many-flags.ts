import type { Flag } from '../../src/domain/flag.ts';
import { newId } from '../../src/domain/ids.ts';
import type { Store } from '../../src/storage/store.ts';
import { buildFlag } from './builders.ts';

/** The key of the i-th of many flags, `flag-00042`: key order is number order. */
export const manyFlagKey = (i: number, digits = 5) => `flag-${String(i).padStart(digits, '0')}`;

/**
 * `count` flags of one project stored in one transaction, as a large project's would be and far
 * faster than through the API: the i-th is keyed `keyOf(i)`, named `Flag i`, with the fields
 * `fields(i)` gives (its environments, at least).
 */
export async function storeManyFlags(
  store: Store,
  projectId: string,
  count: number,
  fields: (i: number) => Partial<Flag>,
  keyOf: (i: number) => string = manyFlagKey,
): Promise<void> {
  await store.transaction(async (tx) => {
    for (let i = 0; i < count; i++) {
      await tx.insertFlag(
        buildFlag(keyOf(i), { id: newId('flg'), projectId, name: `Flag ${i}`, ...fields(i) }),
      );
    }
  });
}
