import type { Flag, FlagEnvironment, Rollout } from '../../../../src/domain/flag.ts';
import { environmentValueWords, variantWords } from './setting-words.ts';

// Comparing a flag's settings in two environments, and copying one's over the other's as one
// PATCH of the flag (docs/decisions/1811): it passes the approval gate like any other save.
// Pure, so it is unit-tested (environment-copy.test.ts).

/** One setting of an environment, in both environments compared, as a person reads it. */
export interface SettingRow {
  readonly setting: string;
  readonly left: string;
  readonly right: string;
  readonly same: boolean;
}

const ROLLOUT_BY = 'targetingKey';

/** An environment's settings in words, by setting; the JsonLogic row only where targeting is imported. */
function settingsOf(flag: Flag, config: FlagEnvironment | undefined): Map<string, string> {
  const settings = new Map<string, string>();
  if (config === undefined) return settings;
  const words = (field: keyof FlagEnvironment, none = 'none') =>
    environmentValueWords(field, config[field], flag.key) ?? none;
  settings.set('Switch', words('enabled'));
  settings.set('Served when off', variantWords(config.offVariant));
  settings.set('Prerequisites', words('prerequisites'));
  if (config.targeting !== undefined)
    settings.set('JsonLogic targeting (imported)', JSON.stringify(config.targeting, null, 2));
  settings.set('Individual targets', words('targets'));
  settings.set('Rules', words('rules'));
  settings.set(
    'Default',
    config.defaultRollout === undefined ? variantWords(config.defaultVariant) : words('defaultRollout'),
  );
  return settings;
}

/** Every setting of the flag in environments `left` and `right`, side by side, each marked same or not. */
export function compareEnvironments(flag: Flag, left: string, right: string): SettingRow[] {
  const a = settingsOf(flag, flag.environments[left]);
  const b = settingsOf(flag, flag.environments[right]);
  const names = [...new Set([...a.keys(), ...b.keys()])];
  return names.map((setting) => {
    const l = a.get(setting) ?? 'none';
    const r = b.get(setting) ?? 'none';
    return { setting, left: l, right: r, same: l === r };
  });
}

/**
 * A rollout to send over `current` so that the stored one evaluates as `wanted`: the PATCH merges
 * a rollout into the one there, so where `wanted` leaves `bucketBy` or `seed` to its default and
 * `current` sets it, the default is sent by name (the same buckets).
 */
function rolloutOver(wanted: Rollout, current: Rollout | undefined, flagKey: string): Rollout {
  return {
    ...wanted,
    ...(current?.bucketBy !== undefined && wanted.bucketBy === undefined ? { bucketBy: ROLLOUT_BY } : {}),
    ...(current?.seed !== undefined && wanted.seed === undefined ? { seed: flagKey } : {}),
  };
}

/**
 * The body of `PATCH /v1/flags/{id}` (with If-Match: the flag's version) that makes `target`
 * evaluate as `source` does: every environment setting, rules as new rules of the target (their
 * ids stay the source's own), and whatever the target has and the source has not, removed.
 */
export function copyPatch(flag: Flag, source: string, target: string): Record<string, unknown> {
  const from = flag.environments[source];
  const to = flag.environments[target];
  if (from === undefined || to === undefined)
    throw new Error(`The flag has no environment "${source}" or "${target}".`);
  const removedOr = <T>(wanted: T | undefined, current: unknown) =>
    wanted !== undefined ? { value: wanted } : current !== undefined ? { value: null } : undefined;
  const optional = {
    defaultRollout: removedOr(
      from.defaultRollout && rolloutOver(from.defaultRollout, to.defaultRollout, flag.key),
      to.defaultRollout,
    ),
    targeting: removedOr(from.targeting, to.targeting),
    prerequisites: removedOr(from.prerequisites, to.prerequisites),
  };
  const settings: Record<string, unknown> = {
    enabled: from.enabled,
    offVariant: from.offVariant,
    defaultVariant: from.defaultVariant,
    targets: from.targets,
    rules: from.rules.map(({ id: _, ...rule }) => rule),
  };
  for (const [field, change] of Object.entries(optional))
    if (change !== undefined) settings[field] = change.value;
  return { environments: { [target]: settings } };
}
