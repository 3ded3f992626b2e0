import type { Variant } from '../../../../src/domain/flag.ts';
import { ENVIRONMENT_FIELDS as FIELDS } from '../../../../src/domain/flag.ts';
import { keyOfPointerToken } from '../../../../src/domain/json.ts';
import { environmentFieldLabel, environmentValueWords, variantsWords } from './setting-words.ts';

/** A flag patch (or change request) as lines a person reads: field, what it is now, what it would be. */
export interface PatchLine {
  readonly field: string;
  readonly now: string;
  readonly next: string;
}

type Json = Readonly<Record<string, unknown>>;

const ENVIRONMENT_FIELDS: ReadonlySet<string> = new Set(FIELDS);
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown): string => (value === undefined ? '—' : JSON.stringify(value));

/**
 * One field's line. Environment fields read "<environment>: <setting>" with values in the words
 * the Compare panel uses ("rule 1: in segment beta → on"), never the stored JSON with rule ids;
 * the variants likewise; anything else shows its JSON.
 */
function line(path: readonly string[], now: unknown, next: unknown, flagKey: string): PatchLine {
  const [first, environment, field, ...deeper] = path;
  const environmentField = first === 'environments' && field !== undefined && deeper.length === 0;
  const words = (value: unknown) => {
    if (value === undefined) return '—';
    if (environmentField) return environmentValueWords(field, value, flagKey) ?? show(value);
    if (first === 'variants' && path.length === 1 && Array.isArray(value))
      return variantsWords(value as Variant[]);
    return show(value);
  };
  return {
    field: environmentField
      ? `${environment}: ${environmentFieldLabel(field)}`
      : path.join(' ') || '(the whole document)',
    now: words(now),
    next: next === null ? '(removed)' : words(next),
  };
}

/**
 * What `patch` would change in `flag`: environment fields (top-level ones apply to `environment`,
 * as PATCH /v1/flags does) as `<environment> <field>`, flag fields by name; fields it would leave as
 * they are are left out.
 */
export function patchLines(patch: Json, flag: Json | undefined, environment: string): PatchLine[] {
  const environments = (isObject(flag?.environments) ? flag.environments : {}) as Record<string, Json>;
  const flagKey = typeof flag?.key === 'string' ? flag.key : '';
  const lines: PatchLine[] = [];
  const add = (path: readonly string[], now: unknown, next: unknown) => {
    // null removes; removing what is not there changes nothing.
    if (next === null && now === undefined) return;
    if (JSON.stringify(now) !== JSON.stringify(next)) lines.push(line(path, now, next, flagKey));
  };
  for (const [field, next] of Object.entries(patch)) {
    if (field === 'environments' && isObject(next)) {
      for (const [key, fields] of Object.entries(next)) {
        if (!isObject(fields)) continue;
        for (const [name, value] of Object.entries(fields))
          add(['environments', key, name], environments[key]?.[name], value);
      }
    } else if (ENVIRONMENT_FIELDS.has(field)) {
      add(['environments', environment, field], environments[environment]?.[field], next);
    } else {
      add([field], flag?.[field], next);
    }
  }
  return lines;
}

/** One field a change request changes, as the one gate records it: where, its value then, and after. */
export interface FieldChange {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
}

/**
 * A change request's own changes as lines: only what its author changed, each with the value it
 * was based on (`now` is that value, as it was when the request was made), worded as `patchLines`
 * words them. `flagKey` is the flag's (a rollout's default seed), empty for a segment's request.
 */
export function changeLines(changes: readonly FieldChange[], flagKey = ''): PatchLine[] {
  return changes.map(({ path, before, after }) =>
    line(path.split('/').slice(1).map(keyOfPointerToken), before, after ?? null, flagKey),
  );
}
