import type { Environment } from '../../src/domain/project.ts';
import { differences } from './change-words.ts';

// Which environments a change reaches, and whether it is applied or becomes a change request.
// Pure, so it is unit-tested (change-reach.test.ts); protected.tsx asks with it.

/** Approvals a change here needs before it is written (decision 1003); 0 when none. */
export const requiredApprovals = (environment: Environment): number => environment.requiredApprovals ?? 0;

/** Whether a change here asks first: protected (decision 0604) or guarded by approvals. */
export const asksFirst = (environment: Environment): boolean =>
  environment.protected || requiredApprovals(environment) > 0;

export interface Reach {
  /** The environments that make the dashboard ask before the change: protected or guarded ones. */
  readonly asked: readonly Environment[];
  /**
   * Whether the change becomes a change request instead of a write: a non-admin's change to any
   * environment that requires approvals (the API decides; this only words the question).
   */
  readonly request: boolean;
  /** The environments whose approvals it waits for, when it is a request. */
  readonly guarded: readonly Environment[];
}

/** What a change to `environments` by this person (an admin or not) reaches. */
export function reachOf(environments: readonly Environment[], admin: boolean): Reach {
  const guarded = environments.filter((e) => requiredApprovals(e) > 0);
  return { asked: environments.filter(asksFirst), request: !admin && guarded.length > 0, guarded };
}

type Json = Readonly<Record<string, unknown>>;
interface FlagLike {
  readonly variants?: unknown;
  readonly environments?: Readonly<Record<string, unknown>>;
}

/**
 * The keys of the environments restoring `version` would change in `current`: each whose
 * configuration differs, or all of them when the variants differ (a variant's value is served in
 * every environment). Environments the version did not have keep theirs (decision 1001).
 */
export function environmentsRestoreChanges(current: FlagLike, version: FlagLike): string[] {
  const now = (current.environments ?? {}) as Record<string, Json>;
  const then = (version.environments ?? {}) as Record<string, Json>;
  const keys = Object.keys(now);
  if (differences(current.variants, version.variants).length > 0) return keys;
  return keys.filter((key) => then[key] !== undefined && differences(now[key], then[key]).length > 0);
}

interface VariantLike {
  readonly key: string;
  readonly value: unknown;
}

/**
 * Whether a patch's `variants` change what some environment serves: an existing variant's value
 * changed, or one removed or renamed (decision 1003). Adding a variant serves nobody anything new.
 */
export function variantsReachEveryEnvironment(stored: readonly VariantLike[], patched: unknown): boolean {
  if (!Array.isArray(patched)) return false;
  const next = patched as readonly VariantLike[];
  return stored.some((v) => {
    const kept = next.find((n) => n.key === v.key);
    return kept === undefined || differences(kept.value, v.value).length > 0;
  });
}
