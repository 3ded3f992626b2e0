import { afterEach, beforeEach, expect, it } from 'vitest';
import { LOCAL_ACCOUNT } from '../../src/domain/account.ts';
import type { ApiKey } from '../../src/domain/api-key.ts';
import type { AuditEvent } from '../../src/domain/audit-event.ts';
import type { Flag, FlagEnvironment, JsonValue } from '../../src/domain/flag.ts';
import { newId } from '../../src/domain/ids.ts';
import type { Environment, Project } from '../../src/domain/project.ts';
import type { Segment } from '../../src/domain/segment.ts';
import {
  type FlagFilter,
  type Page,
  type PageRequest,
  type Store,
  type StoredAccount,
  type StoredApiKey,
  type StoredInvitation,
  type StoredPasswordReset,
  type StoredSession,
  UniqueViolation,
} from '../../src/storage/store.ts';
import {
  buildEnvironment,
  buildFlag,
  buildFlagEnvironment,
  buildProject,
  buildSegment,
  inEnvironments,
  rolloutWeights,
  variantList,
} from '../support/builders.ts';
import { describeEachDatabase } from '../support/database.ts';

// Fixtures. Ids come from the application's own generator, which sorts by creation time.

const CREATED = '2026-01-02T03:04:05.000Z';
const UPDATED = '2026-02-03T04:05:06.000Z';

const created = { createdAt: CREATED, updatedAt: CREATED };

function aProject(key: string, overrides: Partial<Project> = {}): Project {
  return buildProject(key, { id: newId('prj'), name: `Project ${key}`, ...created, ...overrides });
}

function anEnvironment(projectId: string, key: string, overrides: Partial<Environment> = {}): Environment {
  return buildEnvironment(projectId, key, { id: newId('env'), ...created, ...overrides });
}

const disabled = buildFlagEnvironment({ enabled: false });

function aFlag(
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

function aSegment(projectId: string, key: string, overrides: Partial<Segment> = {}): Segment {
  return buildSegment(key, { id: newId('seg'), projectId, name: `Segment ${key}`, ...created, ...overrides });
}

function anApiKey(projectId: string | null, overrides: Partial<StoredApiKey> = {}): StoredApiKey {
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

function anAuditEvent(overrides: Partial<AuditEvent> = {}): AuditEvent {
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
const EVERY_JSON_VALUE: { [key: string]: JsonValue } = {
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
interface ProjectKeyed {
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

type Resource = Environment | Flag | Segment;

const PROJECT_KEYED: readonly ProjectKeyed[] = [
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
async function givenProject(
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
async function everyPage<T>(
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
const keyByHash = async (store: Store, secretHash: string) =>
  (await store.findApiKeysByHash([secretHash]))[0];

function anAccount(overrides: Partial<StoredAccount> = {}): StoredAccount {
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

function anInvitation(overrides: Partial<StoredInvitation> = {}): StoredInvitation {
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

function aSession(accountId: string, overrides: Partial<StoredSession> = {}): StoredSession {
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
const SEARCHED_FLAGS = {
  'new-Checkout': 'Shiny',
  basket: 'CHECKOUT basket',
  search: 'Search',
  umlauts: 'Ärger Über Straße',
  a_b: 'Fifty% off',
  axb: 'Fifty percent off',
  plain: 'back\\slash',
};

/** Finding by `field` gives `stored` exactly as it went in, and nothing for a value nothing has. */
async function expectLookup<T, F extends keyof T>(
  stored: T,
  field: F,
  find: (value: T[F]) => Promise<T | undefined>,
  unknown: T[F],
): Promise<void> {
  expect(await find(stored[field])).toStrictEqual(stored);
  expect(await find(unknown)).toBeUndefined();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Key order is code-unit order: keys are case-sensitive ASCII. */
const sorted = (keys: readonly string[]) => [...keys].sort();

describeEachDatabase('Store contract', (database) => {
  let store: Store;
  let close: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    const opened = await database.open();
    store = opened.store;
    close = opened.close;
  });

  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  /** The keys of the project's flags that `filter` lists, in the store's order (one page holds them). */
  const flagKeys = async (projectId: string, filter: FlagFilter) =>
    (await store.listFlags(projectId, filter, { limit: 100 })).items.map((f) => f.key);

  it('answers a ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  // Projects

  it('finds an inserted project by its id and by its key', async () => {
    const project = aProject('checkout', { name: 'Checkout', description: 'Grüße 🚀' });
    await store.insertProject(project);

    expect(await store.findProject(project.id)).toStrictEqual(project);
    expect(await store.findProject('checkout')).toStrictEqual(project);
  });

  it('finds no project for an unknown id or key', async () => {
    await store.insertProject(aProject('checkout'));

    expect(await store.findProject('prj_unknown')).toBeUndefined();
    expect(await store.findProject('Checkout')).toBeUndefined();
  });

  it('lists projects in key order, a page at a time, with a cursor exactly while more remain', async () => {
    const keys = ['delta', 'Alpha', 'charlie', 'bravo-2', 'bravo', 'echo_1', '9lives'];
    for (const key of keys) await store.insertProject(aProject(key));

    const pages = await everyPage((page) => store.listProjects(page), 3);

    expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => p.nextCursor !== undefined)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.items.map((project) => project.key))).toEqual(sorted(keys));
  });

  it('gives no cursor when the last page is exactly full', async () => {
    for (const key of ['a', 'b', 'c', 'd']) await store.insertProject(aProject(key));

    const pages = await everyPage((page) => store.listProjects(page), 2);

    expect(pages.map((p) => p.items.length)).toEqual([2, 2]);
    expect(pages[1]?.nextCursor).toBeUndefined();
  });

  it('lists no projects and no cursor when there are none', async () => {
    expect(await store.listProjects({ limit: 10 })).toStrictEqual({ items: [] });
  });

  it('updates a project when the expected version matches', async () => {
    const project = aProject('checkout');
    await store.insertProject(project);
    const changed = { ...project, key: 'payments', name: 'Payments', version: 2, updatedAt: UPDATED };

    expect(await store.updateProject(changed, 1)).toBe(true);
    expect(await store.findProject(project.id)).toStrictEqual(changed);
    expect(await store.findProject('checkout')).toBeUndefined();
  });

  it('changes nothing and returns false when a project update expects a stale version', async () => {
    const project = aProject('checkout');
    await store.insertProject(project);
    await store.updateProject({ ...project, name: 'Second', version: 2 }, 1);

    expect(await store.updateProject({ ...project, name: 'Stale', version: 2 }, 1)).toBe(false);
    expect(await store.findProject(project.id)).toStrictEqual({ ...project, name: 'Second', version: 2 });
  });

  it('returns false when updating a project that does not exist', async () => {
    expect(await store.updateProject(aProject('ghost'), 1)).toBe(false);
    expect(await store.findProject('ghost')).toBeUndefined();
  });

  it('refuses a second project with the same key with UniqueViolation', async () => {
    await store.insertProject(aProject('checkout'));

    await expect(store.insertProject(aProject('checkout'))).rejects.toBeInstanceOf(UniqueViolation);
    expect((await store.listProjects({ limit: 10 })).items).toHaveLength(1);
  });

  it('treats project keys that differ only in case as different', async () => {
    await store.insertProject(aProject('checkout'));
    await store.insertProject(aProject('Checkout'));

    expect((await store.listProjects({ limit: 10 })).items.map((p) => p.key)).toEqual([
      'Checkout',
      'checkout',
    ]);
  });

  it('refuses to rename a project to a key another project has, changing nothing', async () => {
    const first = aProject('checkout');
    const second = aProject('payments');
    await store.insertProject(first);
    await store.insertProject(second);

    await expect(store.updateProject({ ...second, key: 'checkout', version: 2 }, 1)).rejects.toBeInstanceOf(
      UniqueViolation,
    );
    expect(await store.findProject(second.id)).toStrictEqual(second);
  });

  it("deleting a project deletes its environments, flags, segments, API keys and revision, and nothing of another project's", async () => {
    const { project, environments } = await givenProject(store, 'checkout');
    const flag = aFlag(project.id, 'new-button', ['development', 'production']);
    const segment = aSegment(project.id, 'beta');
    const key = anApiKey(project.id);
    await store.insertFlag(flag);
    await store.insertSegment(segment);
    await store.insertApiKey(key);

    const other = await givenProject(store, 'payments');
    const otherFlag = aFlag(other.project.id, 'new-button', ['development', 'production']);
    const otherSegment = aSegment(other.project.id, 'beta');
    const otherKey = anApiKey(other.project.id);
    const orgKey = anApiKey(null, { role: 'admin' });
    await store.insertFlag(otherFlag);
    await store.insertSegment(otherSegment);
    await store.insertApiKey(otherKey);
    await store.insertApiKey(orgKey);

    await store.deleteProject(project.id);

    expect(await store.findProject(project.id)).toBeUndefined();
    expect(await store.listEnvironments(project.id)).toEqual([]);
    expect(await store.findEnvironment(project.id, environments[0]!.key)).toBeUndefined();
    expect(await store.findFlagById(flag.id)).toBeUndefined();
    expect(await store.allFlags(project.id)).toEqual([]);
    expect(await store.findSegmentById(segment.id)).toBeUndefined();
    expect(await store.findApiKeyById(key.id)).toBeUndefined();
    expect(await keyByHash(store, key.secretHash)).toBeUndefined();
    expect((await store.listRevisions()).has(project.id)).toBe(false);

    expect(await store.findProject(other.project.id)).toStrictEqual(other.project);
    expect(await store.listEnvironments(other.project.id)).toStrictEqual(other.environments);
    expect(await store.findFlagById(otherFlag.id)).toStrictEqual(otherFlag);
    expect(await store.findSegmentById(otherSegment.id)).toStrictEqual(otherSegment);
    expect(await keyByHash(store, otherKey.secretHash)).toStrictEqual(otherKey);
    expect(await keyByHash(store, orgKey.secretHash)).toStrictEqual(orgKey);
    expect((await store.listRevisions()).get(other.project.id)).toBe(1);
  });

  // Revisions

  it('starts a new project at revision 1, and each bump returns the next revision', async () => {
    const project = aProject('checkout');
    await store.insertProject(project);

    expect((await store.listRevisions()).get(project.id)).toBe(1);
    expect(await store.bumpRevision(project.id)).toBe(2);
    expect(await store.bumpRevision(project.id)).toBe(3);
    expect((await store.listRevisions()).get(project.id)).toBe(3);
  });

  it('lists the revision of every project, each moving on its own', async () => {
    const a = aProject('a');
    const b = aProject('b');
    await store.insertProject(a);
    await store.insertProject(b);
    await store.bumpRevision(b.id);
    await store.bumpRevision(b.id);

    expect(await store.listRevisions()).toEqual(
      new Map([
        [a.id, 1],
        [b.id, 3],
      ]),
    );
  });

  // What environments, flags and segments share: a key unique in their project, versioned
  // updates, deletes by id. Held for each kind of PROJECT_KEYED.

  for (const k of PROJECT_KEYED) {
    it(`refuses a second ${k.kind} with the same key in one project with UniqueViolation, changing nothing`, async () => {
      const { project } = await givenProject(store, 'checkout');
      const first = k.make(project.id, 'first');
      await k.insert(store, first);

      await expect(k.insert(store, k.edit(k.make(project.id, 'first')))).rejects.toBeInstanceOf(
        UniqueViolation,
      );
      expect((await k.all(store, project.id)).filter((item) => item.key === 'first')).toStrictEqual([first]);
    });

    it(`allows the same ${k.kind} key in another project`, async () => {
      const { project } = await givenProject(store, 'checkout');
      const other = await givenProject(store, 'payments');
      await k.insert(store, k.make(project.id, 'first'));
      const elsewhere = k.make(other.project.id, 'first');

      await k.insert(store, elsewhere);

      expect(await k.find(store, elsewhere)).toStrictEqual(elsewhere);
      expect((await k.all(store, other.project.id)).filter((item) => item.key === 'first')).toStrictEqual([
        elsewhere,
      ]);
    });

    it(`updates ${k.a} only when the expected version matches`, async () => {
      const { project } = await givenProject(store, 'checkout');
      const item = k.make(project.id, 'first');
      await k.insert(store, item);
      const changed = { ...k.edit(item), version: 2, updatedAt: UPDATED };

      expect(await k.update(store, { ...changed, name: 'Stale' }, 2)).toBe(false);
      expect(await k.find(store, item)).toStrictEqual(item);
      expect(await k.update(store, changed, 1)).toBe(true);
      expect(await k.find(store, item)).toStrictEqual(changed);
    });

    it(`refuses to rename ${k.a} to a key another ${k.kind} of its project has, changing nothing`, async () => {
      const { project } = await givenProject(store, 'checkout');
      const first = k.make(project.id, 'first');
      const second = k.make(project.id, 'second');
      await k.insert(store, first);
      await k.insert(store, second);

      await expect(
        k.update(store, { ...k.edit(second), key: 'first', version: 2 }, 1),
      ).rejects.toBeInstanceOf(UniqueViolation);
      expect(await k.find(store, second)).toStrictEqual(second);
      expect(await k.find(store, first)).toStrictEqual(first);
    });

    it(`deletes ${k.a}, leaving the others alone`, async () => {
      const { project } = await givenProject(store, 'checkout');
      const before = await k.all(store, project.id);
      const doomed = k.make(project.id, 'doomed');
      const kept = k.make(project.id, 'kept');
      await k.insert(store, doomed);
      await k.insert(store, kept);

      await k.remove(store, doomed);

      expect(await k.find(store, doomed)).toBeUndefined();
      expect(await k.all(store, project.id)).toStrictEqual([...before, kept]);
    });
  }

  // Environments

  it("lists a project's environments in creation order, not key order", async () => {
    const { project, environments } = await givenProject(store, 'checkout', [
      'production',
      'development',
      'Staging',
    ]);
    await givenProject(store, 'payments', ['qa']);

    expect(await store.listEnvironments(project.id)).toStrictEqual(environments);
  });

  it('finds an environment by its project and key, and nowhere else', async () => {
    const { project, environments } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments', ['qa']);

    expect(await store.findEnvironment(project.id, 'production')).toStrictEqual(environments[1]);
    expect(await store.findEnvironment(project.id, 'qa')).toBeUndefined();
    expect(await store.findEnvironment(other.project.id, 'production')).toBeUndefined();
    expect(await store.findEnvironment(project.id, 'Production')).toBeUndefined();
  });

  it("deleting an environment removes every flag's configuration in it and keeps the others", async () => {
    const { project, environments } = await givenProject(store, 'checkout', [
      'development',
      'production',
      'staging',
    ]);
    const flags = ['a', 'b', 'c'].map((key) =>
      aFlag(project.id, key, ['development', 'production', 'staging']),
    );
    for (const flag of flags) await store.insertFlag(flag);

    await store.deleteEnvironment(environments[2]!.id);

    expect(await store.listEnvironments(project.id)).toStrictEqual(environments.slice(0, 2));
    for (const flag of await store.allFlags(project.id)) {
      expect(Object.keys(flag.environments).sort()).toEqual(['development', 'production']);
    }
  });

  it('a new environment with the key of a deleted one starts without the old configuration', async () => {
    const { project, environments } = await givenProject(store, 'checkout');
    const flag = aFlag(project.id, 'a', ['development', 'production'], {
      environments: { development: disabled, production: { ...disabled, enabled: true } },
    });
    await store.insertFlag(flag);
    await store.deleteEnvironment(environments[1]!.id);
    const production = anEnvironment(project.id, 'production');
    await store.insertEnvironment(production);

    expect((await store.findFlagById(flag.id))?.environments).toStrictEqual({ development: disabled });

    await store.insertFlagEnvironments(production.id, new Map([[flag.id, disabled]]));
    expect((await store.findFlagById(flag.id))?.environments).toStrictEqual({
      development: disabled,
      production: disabled,
    });
  });

  // Flags

  it('stores a flag with its configuration in every environment exactly as given', async () => {
    const { project } = await givenProject(store, 'checkout', ['development', 'production', 'staging']);
    const flag: Flag = {
      id: newId('flg'),
      projectId: project.id,
      key: 'checkout.button-color_v2',
      name: 'Checkout button colour',
      description: 'Which colour converts better. Grüße 🚀',
      type: 'string',
      variants: [
        { key: 'green', value: '#00ff00', name: 'Green', description: 'The control' },
        { key: 'blue', value: '#0000ff' },
        { key: 'red', value: 'it\'s "red" \\ 100% _red_' },
      ],
      tags: ['checkout', 'experiment', 'Grüße'],
      archived: false,
      metadata: { owner: 'team-growth', priority: 3, ratio: 0.25, critical: true, off: false },
      version: 7,
      createdAt: CREATED,
      updatedAt: UPDATED,
      environments: {
        development: {
          enabled: true,
          offVariant: 'green',
          defaultVariant: null,
          defaultRollout: {
            weights: rolloutWeights({ green: 50, blue: 50 }),
          },
          targets: [
            { variant: 'blue', values: ['user-1', 'user-2'] },
            { variant: 'red', values: [] },
          ],
          rules: [
            {
              id: 'rule-1',
              description: 'Dutch beta users outside the company',
              segments: ['beta-users', 'nl'],
              conditions: [
                { type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' },
                { type: 'attribute', attribute: 'user.plan', operator: 'in', values: ['pro', 2, true] },
                { type: 'attribute', attribute: 'age', operator: 'gte', value: 18 },
                {
                  type: 'attribute',
                  attribute: 'email',
                  operator: 'ends_with',
                  value: '@acme.com',
                  negate: true,
                },
                { type: 'attribute', attribute: 'beta', operator: 'exists' },
                { type: 'segment', segment: 'staff', negate: true },
                { type: 'segment', segment: 'testers' },
              ],
              serve: { variant: 'blue' },
            },
            {
              id: 'rule-2',
              segments: [],
              conditions: [],
              serve: {
                rollout: {
                  bucketBy: 'companyId',
                  seed: 'experiment-1',
                  weights: rolloutWeights({ green: 30, blue: 70, red: 0 }),
                },
              },
            },
          ],
        },
        production: {
          enabled: false,
          offVariant: 'green',
          defaultVariant: 'green',
          targets: [],
          rules: [],
          targeting: {
            if: [
              { '===': [{ var: 'country' }, 'NL'] },
              'blue',
              {
                fractional: [
                  { cat: [{ var: '$flagd.flagKey' }, { var: 'targetingKey' }] },
                  ['green', 50],
                  ['blue', 50],
                ],
              },
            ],
          },
        },
        staging: { enabled: false, offVariant: null, defaultVariant: null, targets: [], rules: [] },
      },
    };

    await store.insertFlag(flag);

    expect(await store.findFlagById(flag.id)).toStrictEqual(flag);
    expect(await store.findFlagByKey(project.id, flag.key)).toStrictEqual(flag);
  });

  it('round-trips variant values, metadata and JsonLogic of every JSON type', async () => {
    const { project } = await givenProject(store, 'checkout', ['production']);
    const values = Object.entries(EVERY_JSON_VALUE);
    const flag = aFlag(project.id, 'config', ['production'], {
      type: 'object',
      variants: [
        { key: 'everything', value: EVERY_JSON_VALUE },
        ...values.map(([key, value]) => ({ key, value })),
      ],
      metadata: {
        text: EVERY_JSON_VALUE.escapes as string,
        integer: -3,
        fraction: 0.5,
        yes: true,
        no: false,
      },
      environments: {
        production: {
          enabled: true,
          offVariant: 'null',
          defaultVariant: 'everything',
          targets: [],
          rules: [],
          targeting: {
            if: [{ in: [{ var: 'email' }, values.map(([, value]) => value)] }, 'everything', null],
          },
        },
      },
    });

    await store.insertFlag(flag);

    expect(await store.findFlagById(flag.id)).toStrictEqual(flag);
  });

  it('finds no flag for an unknown id, an unknown key, or a key of another project', async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    await store.insertFlag(aFlag(project.id, 'new-button', ['production']));

    expect(await store.findFlagById('flg_unknown')).toBeUndefined();
    expect(await store.findFlagByKey(project.id, 'old-button')).toBeUndefined();
    expect(await store.findFlagByKey(project.id, 'New-Button')).toBeUndefined();
    expect(await store.findFlagByKey(other.project.id, 'new-button')).toBeUndefined();
  });

  it("lists a project's flags in key order with every environment's configuration", async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    const keys = ['zeta', 'Alpha', 'beta.2', 'beta-2', 'beta', 'beta_2', '0-first'];
    const flags = keys.map((key, i) =>
      aFlag(project.id, key, ['development', 'production'], {
        environments: { development: { ...disabled, enabled: i % 2 === 0 }, production: disabled },
      }),
    );
    for (const flag of flags) await store.insertFlag(flag);
    await store.insertFlag(aFlag(other.project.id, 'alpha', ['production']));

    const { items, nextCursor } = await store.listFlags(project.id, {}, { limit: 100 });

    expect(nextCursor).toBeUndefined();
    expect(items.map((f) => f.key)).toEqual(sorted(keys));
    expect([...items].sort((a, b) => (a.id < b.id ? -1 : 1))).toStrictEqual(flags);
  });

  it('reads the flags with given keys, and those whose configuration names a flag', async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    const requires = (key: string) => ({ ...disabled, prerequisites: [{ flag: key, variants: ['on'] }] });
    const flags = [
      aFlag(project.id, 'base_1', ['production']),
      aFlag(project.id, 'basex1', ['production']),
      aFlag(project.id, 'needs-base', ['production'], { environments: { production: requires('base_1') } }),
      aFlag(project.id, 'needs-basex', ['production'], { environments: { production: requires('basex1') } }),
    ];
    for (const flag of flags) await store.insertFlag(flag);
    await store.insertFlag(
      aFlag(other.project.id, 'elsewhere', ['production'], {
        environments: { production: requires('base_1') },
      }),
    );

    expect(
      (await store.flagsByKeys(project.id, ['needs-base', 'base_1', 'missing'])).map((f) => f.key),
    ).toEqual(['base_1', 'needs-base']);
    expect(await store.flagsByKeys(project.id, [])).toEqual([]);
    // `_` is no LIKE wildcard here: basex1's dependant is not among base_1's.
    const naming = await store.flagsNaming(project.id, 'base_1');
    expect(naming.map((f) => f.key)).toEqual(['needs-base']);
    expect(naming[0]).toStrictEqual(flags[2]);
  });

  it('pages through flags with a cursor exactly while more remain', async () => {
    const { project } = await givenProject(store, 'checkout');
    const keys = Array.from({ length: 11 }, (_, i) => `flag-${String(i).padStart(2, '0')}`).reverse();
    for (const key of keys) await store.insertFlag(aFlag(project.id, key, ['production']));

    const pages = await everyPage((page) => store.listFlags(project.id, {}, page), 4);

    expect(pages.map((p) => p.items.length)).toEqual([4, 4, 3]);
    expect(pages.map((p) => p.nextCursor !== undefined)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.items.map((f) => f.key))).toEqual(sorted(keys));
    expect(pages[0]?.items[0]?.environments).toStrictEqual({ production: disabled });
  });

  it('filters flags by tag, matching whole tags exactly', async () => {
    const { project } = await givenProject(store, 'checkout');
    const tagged = {
      both: ['beta', 'mobile'],
      betaOnly: ['beta'],
      longer: ['beta-2', 'xbeta'],
      capital: ['Beta'],
      quoted: ['say "beta"', '100%_off'],
      none: [],
    };
    for (const [key, tags] of Object.entries(tagged))
      await store.insertFlag(aFlag(project.id, key, [], { tags }));

    const keysTagged = (tag: string) => flagKeys(project.id, { tag });

    expect(await keysTagged('beta')).toEqual(['betaOnly', 'both']);
    expect(await keysTagged('mobile')).toEqual(['both']);
    expect(await keysTagged('Beta')).toEqual(['capital']);
    expect(await keysTagged('say "beta"')).toEqual(['quoted']);
    expect(await keysTagged('100%_off')).toEqual(['quoted']);
    expect(await keysTagged('100%')).toEqual([]);
    expect(await keysTagged('eta')).toEqual([]);
  });

  /** The keys the text search `q` lists among flags named to try it (a fresh project of them). */
  async function searched(q: string): Promise<string[]> {
    const { project } = await givenProject(store, 'checkout');
    for (const [key, name] of Object.entries(SEARCHED_FLAGS)) {
      await store.insertFlag(aFlag(project.id, key, [], { name }));
    }
    return flagKeys(project.id, { q });
  }

  it.each([
    ['checkout', ['basket', 'new-Checkout']],
    ['cHeCkOuT', ['basket', 'new-Checkout']],
    ['shiny', ['new-Checkout']],
    ['nothing', []],
  ])('filters flags by text in the key or the name, ignoring case: %j finds %j', async (q, keys) => {
    expect(await searched(q)).toEqual(keys);
  });

  it.each([
    ['Ärger', ['umlauts']],
    ['r Über s', ['umlauts']],
  ])(
    'finds flags by text with non-ASCII capitals, written as the name has them: %j finds %j',
    async (q, keys) => {
      expect(await searched(q)).toEqual(keys);
    },
  );

  it.each([
    ['_', ['a_b']],
    ['a_b', ['a_b']],
    ['%', ['a_b']],
    ['y% o', ['a_b']],
    ['\\', ['plain']],
    ['k\\s', ['plain']],
  ])('treats % and _ and backslashes in the search text literally: %j finds %j', async (q, keys) => {
    expect(await searched(q)).toEqual(keys);
  });

  it('filters flags by archived state, and lists both when the filter is absent', async () => {
    const { project } = await givenProject(store, 'checkout');
    await store.insertFlag(aFlag(project.id, 'live', []));
    await store.insertFlag(aFlag(project.id, 'retired', [], { archived: true }));

    const keys = (archived: boolean | undefined) => flagKeys(project.id, { archived });

    expect(await keys(true)).toEqual(['retired']);
    expect(await keys(false)).toEqual(['live']);
    expect(await keys(undefined)).toEqual(['live', 'retired']);
  });

  it('filters flags by their state in one environment, a flag without a configuration there being off', async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    const on = buildFlagEnvironment({ enabled: true });
    const flags = {
      'on-here': { development: disabled, production: on },
      'on-elsewhere': { development: on, production: disabled },
      unconfigured: { development: on },
    };
    for (const [key, environments] of Object.entries(flags))
      await store.insertFlag(aFlag(project.id, key, [], { environments }));
    await store.insertFlag(aFlag(other.project.id, 'elsewhere', [], { environments: { production: on } }));

    const keys = (environment: string, enabled: boolean) =>
      flagKeys(project.id, { enabled: { environment, enabled } });

    expect(await keys('production', true)).toEqual(['on-here']);
    expect(await keys('production', false)).toEqual(['on-elsewhere', 'unconfigured']);
    expect(await keys('development', true)).toEqual(['on-elsewhere', 'unconfigured']);
    expect(await keys('development', false)).toEqual(['on-here']);
    const counted = await store.listFlags(
      project.id,
      { enabled: { environment: 'development', enabled: true } },
      { limit: 1, counted: true },
    );
    expect([counted.items.length, counted.total]).toEqual([1, 2]);
  });

  it('combines every filter with paging', async () => {
    const { project } = await givenProject(store, 'checkout');
    for (let i = 0; i < 20; i++) {
      const key = `${i % 2 === 0 ? 'pay' : 'ship'}-${String(i).padStart(2, '0')}`;
      await store.insertFlag(
        aFlag(project.id, key, [], { tags: i % 4 < 2 ? ['web'] : ['ios'], archived: i === 8 }),
      );
    }

    const pages = await everyPage(
      (page) => store.listFlags(project.id, { q: 'PAY', tag: 'web', archived: false }, page),
      3,
    );

    expect(pages.map((p) => p.nextCursor !== undefined)).toEqual([true, false]);
    expect(pages.flatMap((p) => p.items.map((f) => f.key))).toEqual(['pay-00', 'pay-04', 'pay-12', 'pay-16']);
  });

  it('returns every flag of a project in key order, and none of another project', async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    const keys = ['m', 'B', 'a', 'z', 'a.b', 'a-b'];
    for (const key of keys) await store.insertFlag(aFlag(project.id, key, ['production']));
    await store.insertFlag(aFlag(other.project.id, 'c', ['production']));

    const flags = await store.allFlags(project.id);

    expect(flags.map((f) => f.key)).toEqual(sorted(keys));
    expect(flags.every((f) => f.projectId === project.id)).toBe(true);
    expect(flags[0]?.environments).toStrictEqual({ production: disabled });
  });

  it('updates a flag: its fields, and the configuration of each environment it lists, keeping the others', async () => {
    const { project } = await givenProject(store, 'checkout', ['development', 'production', 'staging']);
    const flag = aFlag(project.id, 'new-button', ['development', 'production', 'staging'], {
      environments: {
        development: {
          ...disabled,
          enabled: true,
          rules: [{ id: 'r1', segments: ['beta'], conditions: [], serve: { variant: 'on' } }],
        },
        production: disabled,
        staging: { ...disabled, targets: [{ variant: 'on', values: ['qa-1'] }] },
      },
    });
    await store.insertFlag(flag);

    const changed: Flag = {
      ...flag,
      key: 'new-button-v2',
      name: 'New button',
      description: 'Now with text',
      type: 'string',
      variants: variantList({ a: 'A', b: 'B' }),
      tags: ['web'],
      archived: true,
      metadata: { owner: 'web' },
      version: 2,
      updatedAt: UPDATED,
      environments: {
        development: { enabled: false, offVariant: 'a', defaultVariant: 'b', targets: [], rules: [] },
        production: {
          enabled: true,
          offVariant: 'a',
          defaultVariant: null,
          defaultRollout: { weights: [{ variant: 'b', weight: 1 }] },
          targets: [],
          rules: [],
          targeting: { var: 'plan' },
        },
      },
    };

    expect(await store.updateFlag(changed, 1)).toBe(true);

    const expected = {
      ...changed,
      environments: { ...changed.environments, staging: flag.environments.staging },
    };
    expect(await store.findFlagById(flag.id)).toStrictEqual(expected);
    expect(await store.findFlagByKey(project.id, 'new-button-v2')).toStrictEqual(expected);
    expect(await store.findFlagByKey(project.id, 'new-button')).toBeUndefined();
  });

  it('changes nothing, configurations included, and returns false when a flag update expects a stale version', async () => {
    const { project } = await givenProject(store, 'checkout');
    const flag = aFlag(project.id, 'new-button', ['development', 'production']);
    await store.insertFlag(flag);
    const second = { ...flag, name: 'Second', version: 2 };
    await store.updateFlag(second, 1);

    const stale = {
      ...flag,
      name: 'Stale',
      version: 2,
      environments: { production: { ...disabled, enabled: true } },
    };

    expect(await store.updateFlag(stale, 1)).toBe(false);
    expect(await store.findFlagById(flag.id)).toStrictEqual(second);
  });

  it('lets exactly one of two concurrent flag updates expecting the same version win', async () => {
    const { project } = await givenProject(store, 'checkout');
    const flag = aFlag(project.id, 'new-button', ['development', 'production']);
    await store.insertFlag(flag);
    const update = (name: string, enabled: boolean) =>
      store.updateFlag(
        { ...flag, name, version: 2, environments: { production: { ...disabled, enabled } } },
        1,
      );

    const results = await Promise.all([update('First', true), update('Second', false)]);

    expect([...results].sort()).toEqual([false, true]);
    const winner = results[0] ? { name: 'First', enabled: true } : { name: 'Second', enabled: false };
    const stored = await store.findFlagById(flag.id);
    expect(stored?.name).toBe(winner.name);
    expect(stored?.version).toBe(2);
    expect(stored?.environments.production?.enabled).toBe(winner.enabled);
  });

  it('returns false when updating a flag that does not exist, storing nothing', async () => {
    const { project } = await givenProject(store, 'checkout');

    expect(await store.updateFlag(aFlag(project.id, 'ghost', ['production']), 1)).toBe(false);
    expect(await store.allFlags(project.id)).toEqual([]);
  });

  it('gives 1,200 flags a configuration in a new environment at once', async () => {
    const { project } = await givenProject(store, 'checkout', ['production']);
    const flags = Array.from({ length: 1200 }, (_, i) =>
      aFlag(project.id, `flag-${String(i).padStart(4, '0')}`, ['production']),
    );
    await store.transaction(async (tx) => {
      for (const flag of flags) await tx.insertFlag(flag);
    });
    const staging = anEnvironment(project.id, 'staging');
    await store.insertEnvironment(staging);
    const configFor = (i: number): FlagEnvironment => ({
      ...disabled,
      enabled: i % 3 === 0,
      targets: i % 5 === 0 ? [{ variant: 'on', values: [`user-${i}`] }] : [],
    });

    await store.insertFlagEnvironments(staging.id, new Map(flags.map((f, i) => [f.id, configFor(i)])));

    const stored = await store.allFlags(project.id);
    expect(stored).toHaveLength(1200);
    stored.forEach((flag, i) => {
      expect(flag.environments).toStrictEqual({ production: disabled, staging: configFor(i) });
    });
  });

  it('gives no flag a configuration in the new environment when one of the batch cannot be stored', async () => {
    const { project } = await givenProject(store, 'checkout', ['production']);
    const flags = Array.from({ length: 450 }, (_, i) => aFlag(project.id, `flag-${i}`, ['production']));
    await store.transaction(async (tx) => {
      for (const flag of flags) await tx.insertFlag(flag);
    });
    const staging = anEnvironment(project.id, 'staging');
    await store.insertEnvironment(staging);
    const configs = new Map<string, FlagEnvironment>(flags.map((f) => [f.id, disabled]));
    configs.set('flg_does_not_exist', disabled);

    await expect(store.insertFlagEnvironments(staging.id, configs)).rejects.toThrow();

    const stored = await store.allFlags(project.id);
    expect(stored.filter((f) => 'staging' in f.environments)).toHaveLength(0);
  });

  // Segments

  it('stores a segment exactly as given and finds it by id and by key in its project', async () => {
    const { project } = await givenProject(store, 'checkout');
    const segment = aSegment(project.id, 'beta-users', {
      name: 'Beta users',
      description: 'People who asked for it. Grüße 🚀',
      match: 'any',
      rules: [
        { type: 'attribute', attribute: 'plan', operator: 'in', values: ['pro', 'team', 3, false] },
        { type: 'attribute', attribute: 'user.signup', operator: 'after', value: '2025-01-01T00:00:00Z' },
        { type: 'attribute', attribute: 'email', operator: 'matches', value: '^.*@(acme|example)\\.com$' },
        { type: 'attribute', attribute: 'score', operator: 'lt', value: 0.5, negate: true },
        { type: 'attribute', attribute: 'legacy', operator: 'not_exists' },
        { type: 'segment', segment: 'staff', negate: true },
      ],
      included: ['user-1', 'user "2"'],
      excluded: ['user-3'],
      version: 4,
      updatedAt: UPDATED,
    });

    await store.insertSegment(segment);

    await expectLookup(segment, 'id', (id) => store.findSegmentById(id), 'seg_unknown');
    await expectLookup(segment, 'key', (key) => store.findSegmentByKey(segment.projectId, key), 'unknown');
    expect(await store.findSegmentByKey('prj_other', segment.key)).toBeUndefined();
  });

  it("lists a project's segments in key order, a page at a time, with a cursor exactly while more remain", async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    const keys = ['staff', 'Beta', 'alpha', 'nl', 'a-b'];
    for (const key of keys) await store.insertSegment(aSegment(project.id, key));
    await store.insertSegment(aSegment(other.project.id, 'other'));

    const pages = await everyPage((page) => store.listSegments(project.id, {}, page), 2);

    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.nextCursor !== undefined)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.items.map((s) => s.key))).toEqual(sorted(keys));
    expect((await store.allSegments(project.id)).map((s) => s.key)).toEqual(sorted(keys));
  });

  it.each([
    ['cHeCkOuT', ['basket', 'new-Checkout']],
    ['Ärger', ['umlauts']],
    ['%', ['a_b']],
    ['k\\s', ['plain']],
  ])(
    'filters segments as it does flags, by text in the key or the name (any case, wildcards literal): %j finds %j',
    async (q, keys) => {
      const { project } = await givenProject(store, 'checkout');
      for (const [key, name] of Object.entries(SEARCHED_FLAGS)) {
        await store.insertSegment(aSegment(project.id, key, { name }));
      }
      const page = await store.listSegments(project.id, { q }, { limit: 10, counted: true });
      expect([page.items.map((s) => s.key), page.total]).toEqual([keys, keys.length]);
    },
  );

  // API keys

  it('finds API keys by their secret hashes, hashes included, skipping unknown ones', async () => {
    const { project } = await givenProject(store, 'checkout');
    const key = anApiKey(project.id, {
      role: 'evaluator',
      environments: ['production', 'staging'],
      expiresAt: '2027-01-01T00:00:00.000Z',
    });
    const orgKey = anApiKey(null, { role: 'admin' });
    const unasked = anApiKey(project.id);
    for (const k of [key, orgKey, unasked]) await store.insertApiKey(k);

    const found = await store.findApiKeysByHash([key.secretHash, 'hash-of-nothing', orgKey.secretHash]);
    expect([...found].sort((a, b) => a.id.localeCompare(b.id))).toStrictEqual([key, orgKey]);
    expect(await store.findApiKeysByHash(['hash-of-nothing'])).toStrictEqual([]);
    expect(await store.findApiKeysByHash([])).toStrictEqual([]);
  });

  it('finds an API key by id without its secret hash', async () => {
    const { project } = await givenProject(store, 'checkout');
    const { secretHash, ...key } = anApiKey(project.id, { role: 'editor' });
    await store.insertApiKey({ ...key, secretHash });

    const found = await store.findApiKeyById(key.id);

    expect(found).toStrictEqual(key);
    expect(JSON.stringify(found)).not.toContain(secretHash);
    expect(await store.findApiKeyById('key_unknown')).toBeUndefined();
  });

  it("lists a project's API keys in creation order without their secret hashes, a page at a time", async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    const keys = Array.from({ length: 5 }, (_, i) => anApiKey(project.id, { name: `z-${5 - i}` }));
    for (const key of keys) await store.insertApiKey(key);
    await store.insertApiKey(anApiKey(other.project.id));
    await store.insertApiKey(anApiKey(null, { role: 'admin' }));

    const pages = await everyPage((page) => store.listApiKeys(project.id, page), 2);

    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.nextCursor !== undefined)).toEqual([true, true, false]);
    const listed: ApiKey[] = pages.flatMap((p) => p.items);
    expect(listed).toStrictEqual(keys.map(({ secretHash: _, ...key }) => key));
    for (const key of keys) expect(JSON.stringify(listed)).not.toContain(key.secretHash);
  });

  it('lists only the organisation-wide API keys when asked for project null', async () => {
    const { project } = await givenProject(store, 'checkout');
    const orgKeys = [anApiKey(null, { role: 'admin' }), anApiKey(null, { role: 'viewer' })];
    await store.insertApiKey(orgKeys[0]!);
    await store.insertApiKey(anApiKey(project.id));
    await store.insertApiKey(orgKeys[1]!);

    const { items, nextCursor } = await store.listApiKeys(null, { limit: 10 });

    expect(nextCursor).toBeUndefined();
    expect(items).toStrictEqual(orgKeys.map(({ secretHash: _, ...key }) => key));
  });

  it('refuses a second API key with the same secret hash with UniqueViolation', async () => {
    const first = anApiKey(null);
    await store.insertApiKey(first);

    await expect(store.insertApiKey(anApiKey(null, { secretHash: first.secretHash }))).rejects.toBeInstanceOf(
      UniqueViolation,
    );
    expect((await store.listApiKeys(null, { limit: 10 })).items).toHaveLength(1);
  });

  it('records when an API key was revoked, and leaves other keys alone', async () => {
    const revoked = anApiKey(null);
    const kept = anApiKey(null);
    await store.insertApiKey(revoked);
    await store.insertApiKey(kept);

    await store.revokeApiKey(revoked.id, UPDATED);

    expect(await keyByHash(store, revoked.secretHash)).toStrictEqual({
      ...revoked,
      revokedAt: UPDATED,
    });
    expect(await store.findApiKeyById(revoked.id)).toMatchObject({ revokedAt: UPDATED });
    expect(await keyByHash(store, kept.secretHash)).toStrictEqual(kept);
  });

  it('records the last use of many API keys at once, ignoring unknown ids and leaving the others alone', async () => {
    const keys = Array.from({ length: 4 }, () => anApiKey(null));
    for (const key of keys) await store.insertApiKey(key);
    const [first, second, third, untouched] = keys as [
      StoredApiKey,
      StoredApiKey,
      StoredApiKey,
      StoredApiKey,
    ];

    await store.touchApiKeys(
      new Map([
        [first.id, '2026-03-01T00:00:00.000Z'],
        [second.id, '2026-03-02T00:00:00.000Z'],
        [third.id, '2026-03-03T00:00:00.000Z'],
        ['key_unknown', '2026-03-04T00:00:00.000Z'],
      ]),
    );
    await store.touchApiKeys(new Map());

    expect((await store.listApiKeys(null, { limit: 10 })).items.map((k) => k.lastUsedAt)).toEqual([
      '2026-03-01T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
      '2026-03-03T00:00:00.000Z',
      null,
    ]);
    expect(await keyByHash(store, untouched.secretHash)).toStrictEqual(untouched);
  });

  // Audit events

  it('stores an audit event exactly as given, read back with the project whose log holds it', async () => {
    const { project } = await givenProject(store, 'checkout');
    const withEverything = anAuditEvent({
      actor: { type: 'user', id: 'usr_1', name: 'Ada "the admin"' },
      action: 'flag.updated',
      resource: { type: 'flag', id: 'flg_9', key: 'new-button' },
      environment: 'production',
      before: { enabled: false, values: EVERY_JSON_VALUE },
      after: { enabled: true, values: EVERY_JSON_VALUE },
      requestId: 'req-42',
    });
    const minimal = anAuditEvent({
      action: 'api_key.revoked',
      resource: { type: 'api_key', id: 'key_1', key: null },
    });
    await store.insertAuditEvent(project.id, withEverything);
    await store.insertAuditEvent(project.id, minimal);

    const { items } = await store.listAuditEvents(project.id, {}, { limit: 10 });

    expect(items).toStrictEqual([minimal, withEverything].map((e) => ({ ...e, projectId: project.id })));
    await store.insertAuditEvent(null, { ...minimal, id: `${minimal.id}-org` });
    const organisation = await store.listAuditEvents(null, { action: 'api_key.revoked' }, { limit: 10 });
    expect(organisation.items.map((e) => e.projectId).sort()).toEqual([null, project.id].sort());
  });

  it("lists a project's audit events newest first, a page at a time, and none of elsewhere", async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    const events = Array.from({ length: 7 }, (_, i) => anAuditEvent({ requestId: `req-${i}` }));
    for (const event of events) await store.insertAuditEvent(project.id, event);
    await store.insertAuditEvent(other.project.id, anAuditEvent());
    await store.insertAuditEvent(null, anAuditEvent({ action: 'project.created' }));

    const pages = await everyPage((page) => store.listAuditEvents(project.id, {}, page), 3);

    expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => p.nextCursor !== undefined)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.items)).toStrictEqual(
      [...events].reverse().map((e) => ({ ...e, projectId: project.id })),
    );
  });

  it('filters audit events by resource type, resource id, action and actor, together or alone', async () => {
    const { project } = await givenProject(store, 'checkout');
    const flag: AuditEvent['resource'] = { type: 'flag', id: 'flg_1', key: 'a' };
    const flagCreated = anAuditEvent({ action: 'flag.created', resource: flag });
    const flagUpdated = anAuditEvent({ action: 'flag.updated', resource: flag });
    const otherFlag = anAuditEvent({ action: 'flag.updated', resource: { ...flag, id: 'flg_2', key: 'b' } });
    const segment = anAuditEvent({
      action: 'segment.updated',
      resource: { type: 'segment', id: 'seg_1', key: 's' },
      actor: { type: 'user', id: 'acc_someone', name: 'Someone' },
    });
    for (const event of [flagCreated, flagUpdated, otherFlag, segment])
      await store.insertAuditEvent(project.id, event);

    const ids = async (filter: Parameters<Store['listAuditEvents']>[1]) =>
      (await store.listAuditEvents(project.id, filter, { limit: 10 })).items.map((e) => e.id);

    expect(await ids({ resourceType: 'flag' })).toEqual([otherFlag.id, flagUpdated.id, flagCreated.id]);
    expect(await ids({ resourceId: 'flg_1' })).toEqual([flagUpdated.id, flagCreated.id]);
    expect(await ids({ action: 'flag.updated' })).toEqual([otherFlag.id, flagUpdated.id]);
    expect(await ids({ resourceType: 'flag', resourceId: 'flg_1', action: 'flag.updated' })).toEqual([
      flagUpdated.id,
    ]);
    expect(await ids({ resourceType: 'segment', action: 'flag.updated' })).toEqual([]);
    expect(await ids({ actorId: 'acc_someone' })).toEqual([segment.id]);
    expect(await ids({ actorId: 'acc_someone', resourceType: 'flag' })).toEqual([]);
  });

  it('pages through filtered audit events', async () => {
    const { project } = await givenProject(store, 'checkout');
    const events = Array.from({ length: 6 }, (_, i) =>
      anAuditEvent({ action: i % 2 === 0 ? 'flag.updated' : 'segment.updated' }),
    );
    for (const event of events) await store.insertAuditEvent(project.id, event);

    const pages = await everyPage(
      (page) => store.listAuditEvents(project.id, { action: 'flag.updated' }, page),
      2,
    );

    expect(pages.map((p) => p.items.length)).toEqual([2, 1]);
    expect(pages.flatMap((p) => p.items)).toStrictEqual(
      [events[4], events[2], events[0]].map((e) => ({ ...e, projectId: project.id })),
    );
  });

  // Accounts, invitations and sessions

  it('stores an account exactly as given and finds it by id and by email', async () => {
    const { project } = await givenProject(store, 'checkout');
    const account = anAccount({ role: 'editor', projectId: project.id, lastLoginAt: UPDATED });
    await store.insertAccount(account);

    await expectLookup(account, 'id', (id) => store.findAccountById(id), 'acc_unknown');
    await expectLookup(account, 'email', (email) => store.findAccountByEmail(email), 'nobody@example.com');
  });

  it('refuses a second account with the same email with UniqueViolation', async () => {
    const first = anAccount({ email: 'ada@example.com' });
    await store.insertAccount(first);

    await expect(store.insertAccount(anAccount({ email: 'ada@example.com' }))).rejects.toBeInstanceOf(
      UniqueViolation,
    );
    expect((await store.listAccounts({}, { limit: 10 })).items).toStrictEqual([first]);
  });

  it('lists accounts in creation order, by scope, a page at a time', async () => {
    const { project } = await givenProject(store, 'checkout');
    const organisation = [anAccount(), anAccount(), anAccount()];
    const scoped = anAccount({ projectId: project.id });
    for (const account of [organisation[0], scoped, organisation[1], organisation[2]])
      await store.insertAccount(account as StoredAccount);

    const pages = await everyPage((page) => store.listAccounts({ projectId: null }, page), 2);
    expect(pages.map((p) => p.items)).toStrictEqual([organisation.slice(0, 2), organisation.slice(2)]);
    expect((await store.listAccounts({ projectId: project.id }, { limit: 10 })).items).toStrictEqual([
      scoped,
    ]);
    expect((await store.listAccounts({}, { limit: 10 })).items).toHaveLength(4);
  });

  it.each([
    ['cHeCkOuT', ['new-Checkout', 'basket']],
    ['Ärger', ['umlauts']],
    ['%', ['a_b']],
    ['k\\s', ['plain']],
    ['AXB@', ['axb']],
  ])(
    'filters accounts of a scope by text in the email or the name (any case, wildcards literal): %j finds %j',
    async (q, emailNames) => {
      const { project } = await givenProject(store, 'checkout');
      for (const [emailName, name] of Object.entries(SEARCHED_FLAGS)) {
        await store.insertAccount(anAccount({ email: `${emailName}@example.com`, name }));
      }
      await store.insertAccount(anAccount({ name: 'Checkout Ärger% k\\s axb@', projectId: project.id }));
      const page = await store.listAccounts({ projectId: null, q }, { limit: 10, counted: true });
      const found = page.items.map((a) => a.email.replace('@example.com', ''));
      expect([found, page.total]).toEqual([emailNames, emailNames.length]);
    },
  );

  it('updates an account only when the expected version matches, never its creation time', async () => {
    const account = anAccount();
    await store.insertAccount(account);
    const next = { ...account, name: 'Ada', lastLoginAt: UPDATED, createdAt: UPDATED, version: 2 };

    expect(await store.updateAccount(next, 1)).toBe(true);
    expect(await store.updateAccount({ ...next, name: 'Stale', version: 2 }, 1)).toBe(false);
    expect(await store.updateAccount({ ...next, id: 'acc_unknown' }, 2)).toBe(false);
    expect(await store.findAccountById(account.id)).toStrictEqual({ ...next, createdAt: CREATED });
  });

  it('deletes an account with its sessions, once', async () => {
    const [gone, kept] = [anAccount(), anAccount()];
    await store.insertAccount(gone);
    await store.insertAccount(kept);
    const [goneSession, keptSession] = [aSession(gone.id), aSession(kept.id)];
    await store.insertSession(goneSession);
    await store.insertSession(keptSession);

    expect(await store.deleteAccount(gone.id)).toBe(true);
    expect(await store.deleteAccount(gone.id)).toBe(false);
    expect(await store.findAccountById(gone.id)).toBeUndefined();
    expect(await store.findSessionByHash(goneSession.tokenHash)).toBeUndefined();
    expect(await store.findSessionByHash(keptSession.tokenHash)).toStrictEqual(keptSession);
  });

  it('stores an invitation exactly as given and finds it by id and by token hash', async () => {
    const { project } = await givenProject(store, 'checkout');
    const invitation = anInvitation({ projectId: project.id });
    const setup = anInvitation({
      email: null,
      invitedBy: { type: 'system', id: 'first-start', name: 'First start' },
    });
    await store.insertInvitation(invitation);
    await store.insertInvitation(setup);

    await expectLookup(invitation, 'id', (id) => store.findInvitationById(id), 'inv_unknown');
    await expectLookup(setup, 'tokenHash', (hash) => store.findInvitationByHash(hash), 'token-of-nothing');
  });

  it('lists invitations by scope, and only the pending ones when asked', async () => {
    const { project } = await givenProject(store, 'checkout');
    const pending = anInvitation();
    const accepted = anInvitation({ acceptedAt: UPDATED });
    const expired = anInvitation({ expiresAt: CREATED });
    const scoped = anInvitation({ projectId: project.id });
    for (const invitation of [pending, accepted, expired, scoped]) await store.insertInvitation(invitation);

    const at = '2026-01-05T00:00:00.000Z';
    expect(
      (await store.listInvitations({ projectId: null, pendingAt: at }, { limit: 10 })).items,
    ).toStrictEqual([pending]);
    expect((await store.listInvitations({ projectId: project.id }, { limit: 10 })).items).toStrictEqual([
      scoped,
    ]);
    const pages = await everyPage((page) => store.listInvitations({}, page), 3);
    expect(pages.map((p) => p.items.length)).toEqual([3, 1]);
  });

  it('accepts an invitation once, even when two accept it at the same time', async () => {
    const invitation = anInvitation();
    await store.insertInvitation(invitation);

    const results = await Promise.all([
      store.acceptInvitation(invitation.id, UPDATED),
      store.acceptInvitation(invitation.id, UPDATED),
    ]);
    expect(results.sort()).toEqual([false, true]);
    expect(await store.findInvitationById(invitation.id)).toStrictEqual({
      ...invitation,
      acceptedAt: UPDATED,
    });
  });

  it('finds an account by its identity provider subject, and refuses a second account for the same subject', async () => {
    const sso = {
      issuer: 'https://id.example.com',
      subject: 'sub-1',
      roles: [{ value: 'devs', role: 'editor' as const, project: null }],
    };
    const bound = anAccount({ sso, externalId: 'ext-1', active: false });
    await store.insertAccount(bound);
    expect(await store.findAccountBySubject(sso.issuer, sso.subject)).toStrictEqual(bound);
    expect(await store.findAccountBySubject('https://other.example.com', sso.subject)).toBeUndefined();
    await expect(store.insertAccount(anAccount({ sso }))).rejects.toBeInstanceOf(UniqueViolation);
  });

  it('takes a pending sign-in once, even when two callbacks take it at the same time', async () => {
    const pending = {
      stateHash: `state-${newId('x')}`,
      browserHash: 'browser',
      nonce: 'nonce',
      codeVerifier: 'verifier',
      returnTo: '/projects',
      expiresAt: '2999-01-01T00:00:00.000Z',
    };
    await store.insertOidcSignIn(pending);
    const taken = await Promise.all([
      store.takeOidcSignIn(pending.stateHash),
      store.takeOidcSignIn(pending.stateHash),
    ]);
    expect(taken.filter((t) => t !== undefined)).toStrictEqual([pending]);
    expect(await store.takeOidcSignIn(pending.stateHash)).toBeUndefined();
  });

  it('refuses a second invitation with the same token hash, and deletes an invitation once', async () => {
    const invitation = anInvitation();
    await store.insertInvitation(invitation);
    await expect(
      store.insertInvitation(anInvitation({ tokenHash: invitation.tokenHash })),
    ).rejects.toBeInstanceOf(UniqueViolation);

    expect(await store.deleteInvitation(invitation.id)).toBe(true);
    expect(await store.deleteInvitation(invitation.id)).toBe(false);
    expect(await store.findInvitationById(invitation.id)).toBeUndefined();
  });

  it('finds a session by its token hash, deletes it once, and sweeps only the expired ones', async () => {
    const account = anAccount();
    await store.insertAccount(account);
    const expired = aSession(account.id, { expiresAt: '2026-01-02T04:00:00.000Z' });
    const live = aSession(account.id, { expiresAt: '2026-01-09T00:00:00.000Z' });
    const ended = aSession(account.id);
    for (const session of [expired, live, ended]) await store.insertSession(session);

    expect(await store.findSessionByHash(ended.tokenHash)).toStrictEqual(ended);
    expect(await store.deleteSession(ended.id)).toBe(true);
    expect(await store.deleteSession(ended.id)).toBe(false);
    await store.deleteExpiredSessions('2026-01-05T00:00:00.000Z');
    expect(await store.findSessionByHash(expired.tokenHash)).toBeUndefined();
    expect(await store.findSessionByHash(live.tokenHash)).toStrictEqual(live);
    expect(await store.findSessionByHash(ended.tokenHash)).toBeUndefined();
  });

  it("ends an account's sessions but one, and none of another account's", async () => {
    const [account, other] = [anAccount(), anAccount()];
    await store.insertAccount(account);
    await store.insertAccount(other);
    const [keep, end1, end2, others] = [
      aSession(account.id),
      aSession(account.id),
      aSession(account.id),
      aSession(other.id),
    ];
    for (const session of [keep, end1, end2, others]) await store.insertSession(session);

    expect(await store.deleteSessionsOfAccount(account.id, keep.id)).toBe(2);
    expect(await store.findSessionByHash(keep.tokenHash)).toStrictEqual(keep);
    expect(await store.findSessionByHash(end1.tokenHash)).toBeUndefined();
    expect(await store.findSessionByHash(others.tokenHash)).toStrictEqual(others);
    expect(await store.deleteSessionsOfAccount(account.id)).toBe(1);
    expect(await store.findSessionByHash(keep.tokenHash)).toBeUndefined();
  });

  it('names the organisation-wide admin accounts only', async () => {
    const { project } = await givenProject(store, 'checkout');
    const admin = anAccount({ role: 'admin' });
    for (const account of [
      admin,
      anAccount({ role: 'admin', projectId: project.id }),
      anAccount({ role: 'editor' }),
    ])
      await store.insertAccount(account);
    expect(await store.organisationAdminIds()).toEqual([admin.id]);
    expect(await store.transaction((tx) => tx.organisationAdminIds())).toEqual([admin.id]);
  });

  it('stores a password reset link by its hash, uses it once, and withdraws only unused ones', async () => {
    const account = anAccount();
    await store.insertAccount(account);
    const reset = (id: string): StoredPasswordReset => ({
      id,
      accountId: account.id,
      tokenHash: `token-of-${id}`,
      createdBy: { type: 'user', id: 'acc_admin', name: 'Admin "A"' },
      createdAt: CREATED,
      expiresAt: '2026-01-03T03:04:05.000Z',
      usedAt: null,
    });
    const [used, pending] = [reset('pwr_used'), reset('pwr_pending')];
    await store.insertPasswordReset(used);
    await store.insertPasswordReset(pending);
    await expect(
      store.insertPasswordReset({ ...reset('pwr_x'), tokenHash: used.tokenHash }),
    ).rejects.toBeInstanceOf(UniqueViolation);
    expect(await store.findPasswordResetByHash(used.tokenHash)).toStrictEqual(used);

    const results = await Promise.all([
      store.usePasswordReset(used.id, UPDATED),
      store.usePasswordReset(used.id, UPDATED),
    ]);
    expect(results.sort()).toEqual([false, true]);
    await store.deletePendingPasswordResets(account.id);
    expect(await store.findPasswordResetByHash(used.tokenHash)).toStrictEqual({ ...used, usedAt: UPDATED });
    expect(await store.findPasswordResetByHash(pending.tokenHash)).toBeUndefined();

    await store.insertPasswordReset(pending);
    await store.deleteAccount(account.id);
    expect(await store.findPasswordResetByHash(pending.tokenHash)).toBeUndefined();
  });

  // Races: what a write's transaction may rely on

  it('of 20 concurrent deletes of one flag, exactly one learns it deleted the row', async () => {
    const { project } = await givenProject(store, 'checkout');
    const flag = aFlag(project.id, 'doomed', ['development', 'production']);
    await store.insertFlag(flag);

    const results = await Promise.all(
      Array.from({ length: 20 }, () => store.transaction((tx) => tx.deleteFlag(flag.id))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.findFlagById(flag.id)).toBeUndefined();
  });

  it('a flag read for update in a transaction makes concurrent writers of it queue, so none sees a stale version', async () => {
    const { project } = await givenProject(store, 'checkout');
    const flag = aFlag(project.id, 'counter', ['production']);
    await store.insertFlag(flag);

    const bump = () =>
      store.transaction(async (tx) => {
        const stored = await tx.findFlagById(flag.id, { forUpdate: true });
        if (stored === undefined) throw new Error('flag vanished');
        return tx.updateFlag({ ...stored, version: stored.version + 1 }, stored.version);
      });
    const results = await Promise.all(Array.from({ length: 20 }, bump));

    expect(results.every(Boolean)).toBe(true);
    expect((await store.findFlagById(flag.id))?.version).toBe(21);
  });

  it('names which segment keys exist in the project, and nothing of another project', async () => {
    const { project } = await givenProject(store, 'checkout');
    const { project: other } = await givenProject(store, 'billing');
    await store.insertSegment(aSegment(project.id, 'beta'));
    await store.insertSegment(aSegment(project.id, 'staff'));
    await store.insertSegment(aSegment(other.id, 'vip'));

    const found = await store.existingSegmentKeys(project.id, ['beta', 'vip', 'nobody', 'beta']);
    expect([...found]).toEqual(['beta']);
    expect(await store.existingSegmentKeys(project.id, [])).toEqual(new Set());
  });

  it('a segment named by an open write cannot be deleted from under it: the delete waits and then sees the write', async () => {
    const { project } = await givenProject(store, 'checkout');
    const segment = aSegment(project.id, 'beta');
    await store.insertSegment(segment);
    const events: string[] = [];

    const referring = store.transaction(async (tx) => {
      await tx.existingSegmentKeys(project.id, ['beta']);
      events.push('referred');
      await sleep(100);
      events.push('write committed');
    });
    await sleep(20);
    const deleting = store.transaction(async (tx) => {
      await tx.findSegmentById(segment.id, { forUpdate: true });
      events.push('delete locked');
      return tx.deleteSegment(segment.id);
    });
    await Promise.all([referring, deleting]);

    expect(events).toEqual(['referred', 'write committed', 'delete locked']);
  });

  // Transactions

  it('commits every write of a transaction whose work succeeds, and returns what the work returns', async () => {
    const project = aProject('checkout');
    const production = anEnvironment(project.id, 'production');
    const flag = aFlag(project.id, 'new-button', ['production']);

    const result = await store.transaction(async (tx) => {
      await tx.insertProject(project);
      await tx.insertEnvironment(production);
      await tx.insertFlag(flag);
      return tx.bumpRevision(project.id);
    });

    expect(result).toBe(2);
    expect(await store.findProject(project.id)).toStrictEqual(project);
    expect(await store.findFlagById(flag.id)).toStrictEqual(flag);
  });

  it('rolls back every write of a transaction whose work throws, and rethrows the error', async () => {
    const { project } = await givenProject(store, 'checkout');
    const existingFlag = aFlag(project.id, 'existing', ['development', 'production']);
    const existingKey = anApiKey(project.id);
    await store.insertFlag(existingFlag);
    await store.insertApiKey(existingKey);
    /** Everything the work below writes to, as the store reads it. */
    const everything = async () => ({
      projects: await store.listProjects({ limit: 100 }),
      revisions: await store.listRevisions(),
      environments: await store.listEnvironments(project.id),
      flags: await store.allFlags(project.id),
      segments: await store.allSegments(project.id),
      keys: await store.listApiKeys(project.id, { limit: 100 }),
      audit: await store.listAuditEvents(project.id, {}, { limit: 100 }),
    });
    const before = await everything();
    const failure = new Error('the work failed');

    const attempt = store.transaction(async (tx) => {
      const newProject = aProject('payments');
      await tx.insertProject(newProject);
      await tx.updateProject({ ...project, name: 'Renamed', version: 2 }, 1);
      await tx.bumpRevision(project.id);
      const staging = anEnvironment(project.id, 'staging');
      await tx.insertEnvironment(staging);
      await tx.insertFlag(aFlag(project.id, 'new-flag', ['production', 'staging']));
      await tx.updateFlag({ ...existingFlag, name: 'Changed', version: 2, environments: {} }, 1);
      await tx.insertFlagEnvironments(staging.id, new Map([[existingFlag.id, disabled]]));
      await tx.insertSegment(aSegment(project.id, 'beta'));
      await tx.insertApiKey(anApiKey(project.id));
      await tx.revokeApiKey(existingKey.id, UPDATED);
      await tx.touchApiKeys(new Map([[existingKey.id, UPDATED]]));
      await tx.insertAuditEvent(project.id, anAuditEvent());
      await tx.deleteFlag(existingFlag.id);
      throw failure;
    });

    await expect(attempt).rejects.toBe(failure);
    expect(await everything()).toStrictEqual(before);
  });

  it('rolls back a transaction whose work fails on a UniqueViolation, keeping nothing it wrote before', async () => {
    const { project } = await givenProject(store, 'checkout');
    await store.insertFlag(aFlag(project.id, 'taken', []));

    const attempt = store.transaction(async (tx) => {
      await tx.insertSegment(aSegment(project.id, 'beta'));
      await tx.insertFlag(aFlag(project.id, 'taken', []));
    });

    await expect(attempt).rejects.toBeInstanceOf(UniqueViolation);
    expect(await store.allSegments(project.id)).toEqual([]);
  });

  it('a transaction started inside a transaction joins it, so the outer failure undoes the inner writes', async () => {
    const failure = new Error('outer work failed');

    const attempt = store.transaction(async (outer) => {
      await outer.insertProject(aProject('outer'));
      const inner = await outer.transaction(async (tx) => {
        await tx.insertProject(aProject('inner'));
        return 'inner done';
      });
      expect(inner).toBe('inner done');
      expect((await outer.listProjects({ limit: 10 })).items.map((p) => p.key)).toEqual(['inner', 'outer']);
      throw failure;
    });

    await expect(attempt).rejects.toBe(failure);
    expect(await store.listProjects({ limit: 10 })).toStrictEqual({ items: [] });
  });

  it('an inner transaction that throws fails the whole transaction', async () => {
    const failure = new Error('inner work failed');

    const attempt = store.transaction(async (outer) => {
      await outer.insertProject(aProject('outer'));
      await outer.transaction(async (tx) => {
        await tx.insertProject(aProject('inner'));
        throw failure;
      });
    });

    await expect(attempt).rejects.toBe(failure);
    expect(await store.listProjects({ limit: 10 })).toStrictEqual({ items: [] });
  });

  it('two transactions inserting the same project key at once end with one project and one UniqueViolation', async () => {
    const events: string[] = [];
    const insertAs = (name: string) =>
      store.transaction(async (tx) => {
        events.push(`${name} started`);
        await tx.insertProject(aProject('checkout', { name }));
        // Hold the transaction open so the other one runs while this one is uncommitted.
        await sleep(100);
        events.push(`${name} finished`);
        return name;
      });

    const results = await Promise.allSettled([insertAs('first'), insertAs('second')]);

    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(UniqueViolation);
    const { items } = await store.listProjects({ limit: 10 });
    expect(items.map((p) => [p.key, p.name])).toEqual([
      ['checkout', (fulfilled[0] as PromiseFulfilledResult<string>).value],
    ]);
    if (database.name === 'sqlite') {
      // SQLite has one writer: the second transaction starts only after the first ends.
      expect(events[1]).toMatch(/finished$/);
    } else {
      // PostgreSQL runs both: the second starts before the first commits, then waits on the key.
      expect(events.slice(0, 2).every((e) => e.endsWith('started'))).toBe(true);
    }
  });
});
