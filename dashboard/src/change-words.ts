import { pointerToken } from '../../src/domain/json.ts';

// What an audit event changed, for people: the flag page's history lines and the audit log's diff.
// Pure, so it is unit-tested (change-words.test.ts).

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One difference between two documents: where (a JSON pointer), and the values either side. */
export interface Difference {
  readonly path: string;
  readonly before: Json | undefined;
  readonly after: Json | undefined;
}

/** Bookkeeping that changes on every write and says nothing about the change. */
const NOISE = new Set(['/version', '/updatedAt']);

const isObject = (v: unknown): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The leaves that differ between `before` and `after`: objects are compared key by key, lists
 * item by item; a value that changed kind (a list became text) is one difference.
 */
export function differences(before: unknown, after: unknown, path = ''): Difference[] {
  if (NOISE.has(path)) return [];
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => differences(before[k], after[k], `${path}/${pointerToken(k)}`));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_, i) => differences(before[i], after[i], `${path}/${i}`)).flat();
  }
  return [{ path: path || '/', before: before as Json | undefined, after: after as Json | undefined }];
}

const FLAG_WORDS: Readonly<Record<string, string>> = {
  name: 'the name',
  description: 'the description',
  tags: 'the tags',
  variants: 'the variants',
  metadata: 'the metadata',
};

const ENVIRONMENT_WORDS: Readonly<Record<string, string>> = {
  offVariant: 'what is served when off',
  defaultVariant: 'the default',
  defaultRollout: 'the default',
  targets: 'the individual targets',
  rules: 'the rules',
  targeting: 'the JsonLogic targeting',
};

const list = (words: readonly string[]) =>
  new Intl.ListFormat('en', { type: 'conjunction' }).format([...new Set(words)]);

/** A change request's events, as its flag's history lists them (decision 1972). */
const REQUEST_WORDS: Readonly<Record<string, string>> = {
  'change_request.created': 'Asked for approval of a change',
  'change_request.approved': 'Approved the change request',
  'change_request.rejected': 'Rejected the change request',
  'change_request.withdrawn': 'Withdrew the change request',
  'change_request.applied': 'Applied the change request',
  'change_request.apply_failed': 'Tried to apply the change request; it could not be applied',
  'change_request.conflicted': 'The change request conflicts with a later change',
};

/**
 * A flag event as a line a person reads: "Switched on in production; changed the rules and the
 * default in production". `environmentName` turns environment keys into their names.
 */
export function describeFlagChange(
  action: string,
  before: unknown,
  after: unknown,
  environmentName: (key: string) => string = (k) => k,
): string {
  const request = REQUEST_WORDS[action];
  if (request !== undefined) return request;
  if (action.endsWith('.created')) return 'Created the flag';
  if (action.endsWith('.deleted')) return 'Deleted the flag';
  const was = isObject(before) ? before : {};
  const now = isObject(after) ? after : {};
  const parts: string[] = [];
  if (was.archived !== now.archived) parts.push(now.archived ? 'Archived the flag' : 'Restored the flag');
  const flagFields = Object.keys(FLAG_WORDS).filter((f) => JSON.stringify(was[f]) !== JSON.stringify(now[f]));
  if (flagFields.length > 0) parts.push(`Changed ${list(flagFields.map((f) => FLAG_WORDS[f] as string))}`);
  const envBefore = isObject(was.environments) ? was.environments : {};
  const envAfter = isObject(now.environments) ? now.environments : {};
  for (const [key, config] of Object.entries(envAfter)) {
    const old = isObject(envBefore[key]) ? envBefore[key] : {};
    const next = isObject(config) ? config : {};
    const name = environmentName(key);
    if (old.enabled !== next.enabled) parts.push(`Switched ${next.enabled ? 'on' : 'off'} in ${name}`);
    const fields = Object.keys({ ...old, ...next }).filter(
      (f) => f !== 'enabled' && JSON.stringify(old[f]) !== JSON.stringify(next[f]),
    );
    if (fields.length > 0)
      parts.push(`Changed ${list(fields.map((f) => ENVIRONMENT_WORDS[f] ?? f))} in ${name}`);
  }
  if (parts.length === 0) return 'Saved without changes';
  const line = parts.join('; ');
  return (
    line.charAt(0).toUpperCase() +
    line.slice(1).replace(/; ([A-Z])/g, (_, c: string) => `; ${c.toLowerCase()}`)
  );
}

interface Person {
  readonly name: string;
}

/**
 * Who stood behind a write a change request made (its audit event's details): "asked by Ann,
 * approved by Bob and Cy", or that an admin applied it without approvals; undefined for any other write.
 */
export function approvalWords(details: unknown): string | undefined {
  if (!isObject(details) || typeof details.changeRequest !== 'string') return undefined;
  const author = (details.author as unknown as Person | undefined)?.name;
  const approvers = Array.isArray(details.approvedBy)
    ? (details.approvedBy as unknown as Person[]).map((p) => p.name)
    : [];
  const asked = author === undefined ? 'through a change request' : `asked by ${author}`;
  const bypassed = typeof details.approvalsBypassed === 'number' && details.approvalsBypassed > 0;
  if (approvers.length === 0) return `${asked}, applied without approvals`;
  return `${asked}, approved by ${list(approvers)}${bypassed ? ', applied before every approval was in' : ''}`;
}
