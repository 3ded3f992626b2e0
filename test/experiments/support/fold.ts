import { AggregateFold } from '../../../src/services/measurement/aggregate-fold.ts';
import { combineMeasuredComparisons } from '../../../src/services/measurement/comparison-statistics.ts';
import { ExperimentComparisons } from '../../../src/services/measurement/experiment-comparisons.ts';
import type { Store } from '../../../src/storage/store.ts';

/** One pass of the aggregate fold over `store`'s experiments, events folded as soon as they are stored. */
export const foldOnce = (store: Store) =>
  new AggregateFold(store, combineMeasuredComparisons(new ExperimentComparisons(store)), {
    settleMs: 0,
  }).pass();

/**
 * Folds until `done` holds (at most `withinMs`; then the caller's assertions say what is missing). On PostgreSQL the fold reads only rows older than
 * every transaction still running on the server (decision 1941), and the tests of other suites
 * share that server: a pass may stop short of what this test just wrote, and a later one folds it.
 */
export async function foldUntil(
  store: Store,
  done: () => Promise<boolean>,
  withinMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    await foldOnce(store);
    if ((await done()) || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
