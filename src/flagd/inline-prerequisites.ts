import { conflict } from '../domain/errors.ts';
import { type Flag, type FlagEnvironment, initialFlagEnvironment } from '../domain/flag.ts';

/** What a flag serves everyone in one environment: a variant, a failure (disabled, prerequisite failed), or it varies. */
type Constant = { readonly serves: string | null } | 'fails' | 'varies';

const configIn = (flag: Flag, environmentKey: string): FlagEnvironment =>
  flag.environments[environmentKey] ?? initialFlagEnvironment(flag.type, flag.variants);

function hasOwnTargeting(config: FlagEnvironment): boolean {
  const targeting = config.targeting;
  const jsonLogic = Boolean(targeting) && Object.keys(targeting as object).length > 0;
  return (
    jsonLogic || config.targets.length > 0 || config.rules.length > 0 || config.defaultRollout !== undefined
  );
}

/**
 * flagd has no prerequisites, so a flag can be exported with them only when they come to the same
 * for everyone: dropped when they always hold, the off variant served statically when one always
 * fails. Otherwise the export answers 409 naming the flag. `flags` are all the project's flags,
 * archived ones too (they still evaluate, so they still decide prerequisites).
 */
export function inlinePrerequisites(environmentKey: string, flags: readonly Flag[]): Flag[] {
  // Built when a flag with prerequisites is first met: most projects have none, and 50,000 flags
  // are exported again at every change a flagd sync stream is told of (decision 2094).
  let byKey: ReadonlyMap<string, Flag> | undefined;
  const flagNamed = (key: string): Flag | undefined => {
    byKey ??= new Map(flags.map((flag) => [flag.key, flag]));
    return byKey.get(key);
  };
  const outcomes = new Map<string, 'holds' | 'fails' | 'varies'>();

  const constantOf = (flag: Flag, visiting: Set<string>): Constant => {
    const config = configIn(flag, environmentKey);
    if (!config.enabled) return 'fails';
    const own = outcomeOf(flag, visiting);
    if (own !== 'holds') return own;
    return hasOwnTargeting(config) ? 'varies' : { serves: config.defaultVariant };
  };

  const outcomeOf = (flag: Flag, visiting: Set<string>): 'holds' | 'fails' | 'varies' => {
    const known = outcomes.get(flag.key);
    if (known !== undefined) return known;
    // A cycle cannot be stored (writes refuse it); the evaluator treats one as failing.
    if (visiting.has(flag.key)) return 'fails';
    visiting.add(flag.key);
    let outcome: 'holds' | 'fails' | 'varies' = 'holds';
    for (const prerequisite of configIn(flag, environmentKey).prerequisites ?? []) {
      const required = flagNamed(prerequisite.flag);
      const constant = required === undefined ? 'fails' : constantOf(required, visiting);
      const result =
        typeof constant === 'string'
          ? constant
          : constant.serves !== null && prerequisite.variants.includes(constant.serves)
            ? 'holds'
            : 'fails';
      // Any prerequisite failing for everyone decides: the off variant is served whatever the others do.
      if (result === 'fails') {
        outcome = 'fails';
        break;
      }
      if (result === 'varies') outcome = 'varies';
    }
    visiting.delete(flag.key);
    outcomes.set(flag.key, outcome);
    return outcome;
  };

  return flags.map((flag) => {
    const config = configIn(flag, environmentKey);
    if (!config.enabled || (config.prerequisites ?? []).length === 0) return flag;
    const outcome = outcomeOf(flag, new Set());
    if (outcome === 'varies') {
      throw conflict(
        `Flag "${flag.key}" has prerequisites whose result depends on the user in "${environmentKey}"; flagd cannot express them exactly.`,
      );
    }
    const { prerequisites: _dropped, ...rest } = config;
    const inlined: FlagEnvironment =
      outcome === 'holds'
        ? rest
        : {
            enabled: true,
            offVariant: config.offVariant,
            defaultVariant: config.offVariant,
            targets: [],
            rules: [],
          };
    return { ...flag, environments: { ...flag.environments, [environmentKey]: inlined } };
  });
}
