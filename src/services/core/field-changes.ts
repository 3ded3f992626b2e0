import { isDeepStrictEqual } from 'node:util';
import type { FieldChange } from '../../domain/change-request.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';
import { isPlainObject, keyOfPointerToken, pointerToken } from '../../domain/json.ts';
import type { Segment } from '../../domain/segment.ts';

/**
 * Field-level changes of flags and segments: what a change request records, checks and applies
 * (docs/decisions/1700-one-gate.md). A "field" is a flag's or segment's own field, or one field
 * of a flag's configuration in one environment; lists (rules, targets, variants) are one field.
 */

/** Identity and bookkeeping: never part of what a write changes. */
const NOT_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'projectId',
  'key',
  'type',
  'version',
  'createdAt',
  'updatedAt',
  'environments',
]);

/** Fields whose "no value" is null rather than absent (a missing optional field is stored absent). */
const NULLABLE: ReadonlySet<string> = new Set(['offVariant', 'defaultVariant']);

/** As JSON says it: absent and undefined become null, so values compare as they are stored. */
const plain = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

const sameValue = (a: unknown, b: unknown) => isDeepStrictEqual(plain(a), plain(b));

function objectChanges(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
  prefix: string,
  skip: ReadonlySet<string> = new Set(),
): FieldChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !skip.has(k));
  return keys
    .filter((key) => !sameValue(before[key], after[key]))
    .map((key) => ({
      path: `${prefix}/${pointerToken(key)}`,
      before: plain(before[key]),
      after: plain(after[key]),
    }));
}

/** What turns `before` into `after`, field by field (environments deleted from `after` are not changes). */
export function flagChanges(before: Flag, after: Flag): FieldChange[] {
  const changes = objectChanges(
    before as unknown as Record<string, unknown>,
    after as unknown as Record<string, unknown>,
    '',
    NOT_FIELDS,
  );
  for (const [key, config] of Object.entries(after.environments)) {
    const was = before.environments[key];
    if (was === undefined) continue;
    changes.push(
      ...objectChanges(
        was as unknown as Record<string, unknown>,
        config as unknown as Record<string, unknown>,
        `/environments/${pointerToken(key)}`,
      ),
    );
  }
  return changes;
}

export function segmentChanges(before: Segment, after: Segment): FieldChange[] {
  return objectChanges(
    before as unknown as Record<string, unknown>,
    after as unknown as Record<string, unknown>,
    '',
    NOT_FIELDS,
  );
}

const tokens = (path: string) => path.split('/').slice(1).map(keyOfPointerToken);

/** The value at a JSON pointer, null when absent. */
export function valueAt(document: unknown, path: string): unknown {
  let here: unknown = document;
  for (const token of tokens(path)) {
    if (!isPlainObject(here)) return null;
    here = here[token];
  }
  return plain(here);
}

/** The changes whose base no longer holds in `current`: someone wrote those fields since. */
export function staleChanges(changes: readonly FieldChange[], current: unknown): FieldChange[] {
  return changes.filter((change) => !sameValue(valueAt(current, change.path), change.before));
}

/** `target` with every change's `after` written at its path (a null `after` removes an optional field). */
export function applyChanges<T>(target: T, changes: readonly FieldChange[]): T {
  const result = structuredClone(target) as unknown as Record<string, unknown>;
  for (const change of changes) {
    const path = tokens(change.path);
    const field = path.pop();
    if (field === undefined) continue;
    let here: Record<string, unknown> = result;
    for (const token of path) {
      const next = here[token];
      if (!isPlainObject(next)) throw new Error(`Nothing at ${change.path} to change.`);
      here = next;
    }
    if (change.after === null && !NULLABLE.has(field)) delete here[field];
    else here[field] = structuredClone(change.after);
  }
  return result as T;
}

/** The environments a set of flag changes configures: `/environments/<key>/…`. */
export function environmentsOfChanges(changes: readonly FieldChange[]): string[] {
  const found = new Set<string>();
  for (const { path } of changes) {
    const [first, key] = tokens(path);
    if (first === 'environments' && key !== undefined) found.add(key);
  }
  return [...found];
}

/** A request's base no longer holds: someone wrote the same fields since it was made (409). */
export class StaleChanges extends DomainError {
  readonly reason: string;
  constructor(reason: string) {
    super(
      'conflict',
      `The change request is conflicted: ${reason}; withdraw it and request the change again.`,
    );
    this.reason = reason;
  }
}

/** Refuses to apply changes over fields someone else wrote since they were requested. */
export function refuseStale(stale: readonly FieldChange[]): void {
  if (stale.length === 0) return;
  throw new StaleChanges(`${stale.map((c) => c.path).join(', ')} changed since it was made`);
}
