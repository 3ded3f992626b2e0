import { expect } from 'vitest';
import { LOCAL_ACCOUNT } from '../../../src/domain/account.ts';
import type { AuditEvent } from '../../../src/domain/audit-event.ts';
import type { Flag, JsonValue } from '../../../src/domain/flag.ts';
import { newId } from '../../../src/domain/ids.ts';
import type { Environment, Project } from '../../../src/domain/project.ts';
import type { Segment } from '../../../src/domain/segment.ts';
import type {
  Page,
  PageRequest,
  Store,
  StoredAccount,
  StoredApiKey,
  StoredInvitation,
  StoredSession,
} from '../../../src/storage/store.ts';
import {
  buildEnvironment,
  buildFlag,
  buildFlagEnvironment,
  buildProject,
  buildSegment,
  inEnvironments,
} from '../../support/builders.ts';
import { describeEachDatabase, storeOfEachTest, type TestDatabase } from '../../support/database.ts';

// What every file of the store contract (one a storage role, as src/storage/sql/*-queries.ts) shares.
// Fixtures. Ids come from the application's own generator, which sorts by creation time.

export const CREATED = '2026-01-02T03:04:05.000Z';
export const UPDATED = '2026-02-03T04:05:06.000Z';

export const created = { createdAt: CREATED, updatedAt: CREATED };

export function aProject(key: string, overrides: Partial<Project> = {}): Project {
  return buildProject(key, { id: newId('prj'), name: `Project ${key}`, ...created, ...overrides });
}

export function anEnvironment(
  projectId: string,
  key: string,
  overrides: Partial<Environment> = {},
): Environment {
  return buildEnvironment(projectId, key, { id: newId('env'), ...created, ...overrides });
}

export const disabled = buildFlagEnvironment({ enabled: false });

export function aFlag(
  projectId: string,
  key: string,
  environmentKeys: readonly string[],
  overrides: Partial<Flag> = {},
): Flag {
  return buildFlag(key, {
    id: newId('flg'),
    projectId,
    name: `Flag ${key}`,
    ...created,
    environments: inEnvironments(environmentKeys, disabled),
    ...overrides,
  });
}

export function aSegment(projectId: string, key: string, overrides: Partial<Segment> = {}): Segment {
  return buildSegment(key, { id: newId('seg'), projectId, name: `Segment ${key}`, ...created, ...overrides });
}

export function anApiKey(projectId: string | null, overrides: Partial<StoredApiKey> = {}): StoredApiKey {
  const id = newId('key');
  return {
    id,
    name: `Key ${id}`,
    prefix: 'fsk_abcd',
    secretHash: `hash-of-${id}`,
    projectId,
    role: 'viewer',
    environments: null,
    createdAt: CREATED,
    expiresAt: null,
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

export function anAuditEvent(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    id: newId('evt'),
    at: CREATED,
    actor: { type: 'api_key', id: 'key_1', name: 'CI' },
    action: 'flag.updated',
    resource: { type: 'flag', id: 'flg_1', key: 'checkout' },
    before: null,
    after: null,
    requestId: 'req-1',
    ...overrides,
  };
}

/** Every kind of JSON value, including text that SQL or JSON encoding could mangle. */
export const EVERY_JSON_VALUE: { [key: string]: JsonValue } = {
  null: null,
  true: true,
  false: false,
  zero: 0,
  integer: 42,
  negative: -17,
  fraction: 3.25,
  tiny: 1e-7,
  huge: 1.7976931348623157e308,
  maxSafeInteger: Number.MAX_SAFE_INTEGER,
  emptyString: '',
  unicode: 'Grüße, 東京 🚀',
  escapes: 'quote " backslash \\ newline \n tab \t nul \u0000',
  sqlish: "it's 100% _not_ -- ; drop table flags",
  emptyArray: [],
  emptyObject: {},
  mixedArray: [1, 'two', null, false, [3], { four: 4 }],
  nested: { a: { b: { c: [{ d: 'deep' }] } }, 'key with spaces': { '': 'empty key' } },
};

/** A resource keyed within its project, as the store holds environments, flags and segments alike. */
export interface ProjectKeyed {
  readonly kind: string;
  /** The kind with its article, for the tests' names. */
  readonly a: string;
  readonly make: (projectId: string, key: string) => Resource;
  /** A change of what the kind holds besides its key (its configuration, rules, protection). */
  readonly edit: (item: Resource) => Resource;
  readonly insert: (store: Store, item: Resource) => Promise<void>;
  readonly update: (store: Store, item: Resource, expectedVersion: number) => Promise<boolean>;
  readonly remove: (store: Store, item: Resource) => Promise<unknown>;
  /** The stored one named as the API names it: by id, an environment by its project and key. */
  readonly find: (store: Store, item: Resource) => Promise<Resource | undefined>;
  /** Every one of a project, in the order the store lists them. */
  readonly all: (store: Store, projectId: string) => Promise<readonly Resource[]>;
}

export type Resource = Environment | Flag | Segment;

export const PROJECT_KEYED: readonly ProjectKeyed[] = [
  {
    kind: 'environment',
    a: 'an environment',
    make: (projectId, key) => anEnvironment(projectId, key),
    edit: (e) => ({ ...e, name: 'Live', description: 'Customers see this', protected: true }),
    insert: (store, e) => store.insertEnvironment(e as Environment),
    update: (store, e, version) => store.updateEnvironment(e as Environment, version),
    remove: (store, e) => store.deleteEnvironment(e.id),
    find: (store, e) => store.findEnvironment(e.projectId, e.key),
    all: (store, projectId) => store.listEnvironments(projectId),
  },
  {
    kind: 'flag',
    a: 'a flag',
    make: (projectId, key) => aFlag(projectId, key, ['development', 'production']),
    edit: (f) => ({
      ...(f as Flag),
      name: 'Renamed',
      environments: { ...(f as Flag).environments, production: { ...disabled, enabled: true } },
    }),
    insert: (store, f) => store.insertFlag(f as Flag),
    update: (store, f, version) => store.updateFlag(f as Flag, version),
    remove: (store, f) => store.deleteFlag(f.id),
    find: (store, f) => store.findFlagById(f.id),
    all: (store, projectId) => store.allFlags(projectId),
  },
  {
    kind: 'segment',
    a: 'a segment',
    make: (projectId, key) => aSegment(projectId, key),
    edit: (s) => ({
      ...s,
      name: 'Beta testers',
      match: 'any',
      rules: [{ type: 'attribute', attribute: 'beta', operator: 'equals', value: true }],
      included: ['user-1'],
    }),
    insert: (store, s) => store.insertSegment(s as Segment),
    update: (store, s, version) => store.updateSegment(s as Segment, version),
    remove: (store, s) => store.deleteSegment(s.id),
    find: (store, s) => store.findSegmentById(s.id),
    all: (store, projectId) => store.allSegments(projectId),
  },
];

/** A project with its environments, stored. */
export async function givenProject(
  store: Store,
  key: string,
  environmentKeys: readonly string[] = ['development', 'production'],
): Promise<{ project: Project; environments: Environment[] }> {
  const project = aProject(key);
  await store.insertProject(project);
  const environments: Environment[] = [];
  for (const envKey of environmentKeys) {
    const environment = anEnvironment(project.id, envKey);
    await store.insertEnvironment(environment);
    environments.push(environment);
  }
  return { project, environments };
}

/** Follows `nextCursor` to the end, keeping every page. */
export async function everyPage<T>(
  fetch: (page: PageRequest) => Promise<Page<T>>,
  limit: number,
): Promise<Page<T>[]> {
  const pages: Page<T>[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetch({ limit, cursor });
    pages.push(page);
    cursor = page.nextCursor;
    if (pages.length > 1000) throw new Error('paging does not end');
  } while (cursor !== undefined);
  return pages;
}

/** The one key with this secret hash, as authentication finds it. */
export const keyByHash = async (store: Store, secretHash: string) =>
  (await store.findApiKeysByHash([secretHash]))[0];

export function anAccount(overrides: Partial<StoredAccount> = {}): StoredAccount {
  const id = newId('acc');
  return {
    id,
    email: `${id}@example.com`,
    name: `Account ${id}`,
    passwordHash: `scrypt-of-${id}`,
    role: 'viewer',
    projectId: null,
    createdAt: CREATED,
    lastLoginAt: null,
    version: 1,
    ...LOCAL_ACCOUNT,
    ...overrides,
  };
}

export function anInvitation(overrides: Partial<StoredInvitation> = {}): StoredInvitation {
  const id = newId('inv');
  return {
    id,
    email: `${id}@example.com`,
    role: 'editor',
    projectId: null,
    tokenHash: `token-of-${id}`,
    invitedBy: { type: 'api_key', id: 'key_1', name: 'CI' },
    createdAt: CREATED,
    expiresAt: '2026-01-09T03:04:05.000Z',
    acceptedAt: null,
    ...overrides,
  };
}

export function aSession(accountId: string, overrides: Partial<StoredSession> = {}): StoredSession {
  const id = newId('ses');
  return {
    id,
    accountId,
    tokenHash: `token-of-${id}`,
    createdAt: CREATED,
    expiresAt: '2026-01-03T03:04:05.000Z',
    ...overrides,
  };
}

/**
 * Flags (key: name) to search by text: a word in a key and in a name with other capitals,
 * non-ASCII capitals, and the characters SQL patterns give a meaning (`%`, `_`, `\`) beside
 * names they would match if they were read as patterns.
 */
export const SEARCHED_FLAGS = {
  'new-Checkout': 'Shiny',
  basket: 'CHECKOUT basket',
  search: 'Search',
  umlauts: 'Ärger Über Straße',
  a_b: 'Fifty% off',
  axb: 'Fifty percent off',
  plain: 'back\\slash',
};

/** Finding by `field` gives `stored` exactly as it went in, and nothing for a value nothing has. */
export async function expectLookup<T, F extends keyof T>(
  stored: T,
  field: F,
  find: (value: T[F]) => Promise<T | undefined>,
  unknown: T[F],
): Promise<void> {
  expect(await find(stored[field])).toStrictEqual(stored);
  expect(await find(unknown)).toBeUndefined();
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Key order is code-unit order: keys are case-sensitive ASCII. */
export const sorted = (keys: readonly string[]) => [...keys].sort();

/** One role's part of the store contract, held on every test database, each test over a store of its own. */
export function describeStoreContract(
  role: string,
  body: (store: Store, database: TestDatabase) => void,
): void {
  describeEachDatabase(`Store contract: ${role}`, (database) => body(storeOfEachTest(database), database));
}
