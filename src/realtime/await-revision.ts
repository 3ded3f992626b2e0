import type { ProjectChanges } from '../plane/project-changes.ts';

/**
 * Resolves once this node serves `revision` of the project, or after `timeoutMs`: a client told
 * of a change by one node may ask another that has not caught up yet (docs/product.md §9, flagConfigEtag).
 */
export function awaitRevision(
  changes: ProjectChanges,
  projectId: string,
  revision: number,
  timeoutMs: number,
): Promise<void> {
  if ((changes.revisionOf(projectId) ?? 0) >= revision) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    const unsubscribe = changes.subscribe(projectId, (change) => {
      if (change.revision >= revision) done();
    });
  });
}
