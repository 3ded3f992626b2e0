import type { Environment } from './api.ts';
import { reachOf, requiredApprovals } from './change-reach.ts';
import { counted } from './kit/counted.ts';
import { confirm } from './kit/dialogs.tsx';

/** Whether changes in this environment ask first (decision 0604): production is, unless unmarked. */
export const isProtected = (environment: Environment): boolean => environment.protected;

const names = (environments: readonly Environment[]) =>
  new Intl.ListFormat('en', { type: 'conjunction' }).format(environments.map((e) => e.name));

const approvals = (n: number) => counted(n, 'approval');

/**
 * Asks before a change reaches a protected environment or one that requires approvals; true at
 * once when none of `environments` is either. `action` completes "…to <action>?", e.g. "switch
 * Banner on". When the change will become a change request (a non-admin's, decision 1003) the
 * question says it is sent for approval, not applied.
 */
export async function confirmProtected(
  environments: readonly Environment[],
  action: string,
  admin: boolean,
): Promise<boolean> {
  const { asked, request, guarded } = reachOf(environments, admin);
  if (asked.length === 0) return true;
  if (request) {
    return confirm({
      title: `Send for approval: ${action}?`,
      body: (
        <p>
          {guarded.map((e) => `${e.name} requires ${approvals(requiredApprovals(e))}`).join('; ')}. Your
          change is sent for approval as a change request: it is <strong>not applied</strong>, and nothing
          changes for applications until others approve it.
        </p>
      ),
      confirmLabel: 'Send for approval',
    });
  }
  const skipped = guarded.length > 0;
  return confirm({
    title: `Change ${names(asked)}?`,
    body: (
      <p>
        {names(asked)} {asked.length === 1 ? 'is' : 'are'} {skipped ? 'guarded' : 'protected'}: applications
        there see the change at once.
        {skipped && <> As an admin you apply it without the approvals others need.</>} Continue to {action}?
      </p>
    ),
    confirmLabel: `Yes, ${action}`,
    danger: true,
  });
}
