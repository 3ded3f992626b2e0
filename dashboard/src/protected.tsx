import type { Environment } from './api.ts';
import { confirm } from './kit/dialogs.tsx';

/** Whether changes in this environment ask first (decision 0604): production is, unless unmarked. */
export const isProtected = (environment: Environment): boolean => environment.protected;

const names = (environments: readonly Environment[]) =>
  new Intl.ListFormat('en', { type: 'conjunction' }).format(environments.map((e) => e.name));

/**
 * Asks before a change reaches a protected environment; true at once when none of `environments`
 * is protected. `action` completes "…to <action>?", e.g. "switch Banner on".
 */
export async function confirmProtected(
  environments: readonly Environment[],
  action: string,
): Promise<boolean> {
  const guarded = environments.filter(isProtected);
  if (guarded.length === 0) return true;
  return confirm({
    title: `Change ${names(guarded)}?`,
    body: (
      <p>
        {names(guarded)} {guarded.length === 1 ? 'is' : 'are'} protected: applications there see the change at
        once. Continue to {action}?
      </p>
    ),
    confirmLabel: `Yes, ${action}`,
    danger: true,
  });
}
