import { ENVIRONMENT_FIELDS as FIELDS } from '../../../../src/domain/flag.ts';
import { keyOfPointerToken } from '../../../../src/domain/json.ts';

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
 * What `patch` would change in `flag`: environment fields (top-level ones apply to `environment`,
 * as PATCH /v1/flags does) as `<environment> <field>`, flag fields by name; fields it would leave as
 * they are are left out.
 */
export function patchLines(patch: Json, flag: Json | undefined, environment: string): PatchLine[] {
  const environments = (isObject(flag?.environments) ? flag.environments : {}) as Record<string, Json>;
  const lines: PatchLine[] = [];
  const add = (field: string, now: unknown, next: unknown) => {
    // null removes; removing what is not there changes nothing.
    if (next === null && now === undefined) return;
    const line = { field, now: show(now), next: next === null ? '(removed)' : show(next) };
    if (line.now !== line.next) lines.push(line);
  };
  for (const [field, next] of Object.entries(patch)) {
    if (field === 'environments' && isObject(next)) {
      for (const [key, fields] of Object.entries(next)) {
        if (!isObject(fields)) continue;
        for (const [name, value] of Object.entries(fields))
          add(`${key} ${name}`, environments[key]?.[name], value);
      }
    } else if (ENVIRONMENT_FIELDS.has(field)) {
      add(`${environment} ${field}`, environments[environment]?.[field], next);
    } else {
      add(field, flag?.[field], next);
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
 * was based on (`now` is that value, as it was when the request was made). Environment fields read
 * `<environment> <field>`, as `patchLines` words them.
 */
export function changeLines(changes: readonly FieldChange[]): PatchLine[] {
  return changes.map(({ path, before, after }) => {
    const tokens = path.split('/').slice(1).map(keyOfPointerToken);
    const field = tokens[0] === 'environments' && tokens.length > 2 ? tokens.slice(1) : tokens;
    return {
      field: field.join(' ') || '(the whole document)',
      now: show(before),
      next: after === undefined || after === null ? '(removed)' : show(after),
    };
  });
}
