import { authorize, authorizeEnvironments } from '../../access/access-rules.ts';
import type { Actor } from './actor.ts';

/**
 * The one authorisation of a write of a stored resource, once it is read in the write's
 * transaction (the pipeline's first step): an editor of its project over `scope`. A route that
 * ran the same rules before validation left its Grant (http/route-access.ts), which is trusted
 * as it is; a resource of another project than the grant's is a 404 (`missing`), so ids probe
 * nothing. Without a grant (the CLI, a scheduled change run as its author) the rules run here.
 */
export function authoriseWrite(
  actor: Actor,
  projectId: string,
  scope: readonly string[] | 'all',
  missing: () => Error,
): void {
  if (actor.grant !== undefined) {
    if (actor.grant.projectId !== projectId) throw missing();
    return;
  }
  authorize(actor.principal, projectId, 'editor');
  authorizeEnvironments(actor.principal, scope);
}
