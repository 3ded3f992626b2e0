import type { FieldError } from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';

/**
 * Checks the prerequisites of `flag` in every environment against the project's flags (`flags`,
 * by key, where `flag` stands for its stored self): each names another flag and variants it has,
 * once, and following them never leads back (a cycle is named in full: `a → b → a`).
 */
export function validatePrerequisites(flag: Flag, flags: ReadonlyMap<string, Flag>): FieldError[] {
  const errors: FieldError[] = [];
  const project = new Map(flags).set(flag.key, flag);
  for (const [environmentKey, config] of Object.entries(flag.environments)) {
    const seen = new Set<string>();
    (config.prerequisites ?? []).forEach((prerequisite, index) => {
      const at = `/environments/${environmentKey}/prerequisites/${index}`;
      if (seen.has(prerequisite.flag)) {
        errors.push({ path: `${at}/flag`, message: `flag "${prerequisite.flag}" is listed twice` });
      }
      seen.add(prerequisite.flag);
      const required = project.get(prerequisite.flag);
      if (required === undefined) {
        errors.push({ path: `${at}/flag`, message: `no flag "${prerequisite.flag}" in this project` });
        return;
      }
      const variants = new Set(required.variants.map((v) => v.key));
      prerequisite.variants.forEach((variant, i) => {
        if (!variants.has(variant)) {
          errors.push({
            path: `${at}/variants/${i}`,
            message: `flag "${prerequisite.flag}" has no variant "${variant}"`,
          });
        }
      });
    });
    const cycle = cycleThrough(flag.key, project, environmentKey);
    if (cycle !== undefined) {
      errors.push({
        path: `/environments/${environmentKey}/prerequisites`,
        message: `prerequisites form a cycle: ${cycle.join(' → ')}`,
      });
    }
  }
  return errors;
}

/** A path of prerequisites from `start` back to itself in one environment, if there is one. */
function cycleThrough(
  start: string,
  flags: ReadonlyMap<string, Flag>,
  environmentKey: string,
): string[] | undefined {
  const explored = new Set<string>();
  const path: string[] = [start];
  const search = (key: string): boolean => {
    for (const { flag: next } of flags.get(key)?.environments[environmentKey]?.prerequisites ?? []) {
      if (next === start) {
        path.push(next);
        return true;
      }
      if (explored.has(next)) continue;
      explored.add(next);
      path.push(next);
      if (search(next)) return true;
      path.pop();
    }
    return false;
  };
  return search(start) ? path : undefined;
}

/** Keys of the flags that list `flagKey` as a prerequisite in some environment, in key order. */
export function dependantsOf(flagKey: string, flags: readonly Flag[]): string[] {
  return flags
    .filter(
      (flag) =>
        flag.key !== flagKey &&
        Object.values(flag.environments).some((config) =>
          (config.prerequisites ?? []).some((prerequisite) => prerequisite.flag === flagKey),
        ),
    )
    .map((flag) => flag.key)
    .sort();
}

/** The variants `flag` no longer has although a flag requiring it lists them. */
export function requiredVariantsKept(flag: Flag, flags: readonly Flag[]): FieldError[] {
  const variants = new Set(flag.variants.map((v) => v.key));
  const errors: FieldError[] = [];
  for (const other of flags) {
    if (other.key === flag.key) continue;
    for (const [environmentKey, config] of Object.entries(other.environments)) {
      for (const prerequisite of config.prerequisites ?? []) {
        if (prerequisite.flag !== flag.key) continue;
        for (const variant of prerequisite.variants.filter((v) => !variants.has(v))) {
          errors.push({
            path: '/variants',
            message: `flag "${other.key}" requires variant "${variant}" in ${environmentKey}`,
          });
        }
      }
    }
  }
  return errors;
}
