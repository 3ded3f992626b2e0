import { expect, it } from 'vitest';
import type { Flag, FlagEnvironment } from '../../../src/domain/flag.ts';
import { newId } from '../../../src/domain/ids.ts';
import type { FlagFilter } from '../../../src/storage/store.ts';
import { buildFlagEnvironment, rolloutWeights, variantList } from '../../support/builders.ts';
import {
  aFlag,
  anEnvironment,
  CREATED,
  describeStoreContract,
  disabled,
  EVERY_JSON_VALUE,
  everyPage,
  givenProject,
  SEARCHED_FLAGS,
  sorted,
  UPDATED,
} from './support.ts';

describeStoreContract('flags', (store) => {
  /** The keys of the project's flags that `filter` lists, in the store's order (one page holds them). */
  const flagKeys = async (projectId: string, filter: FlagFilter) =>
    (await store.listFlags(projectId, filter, { limit: 100 })).items.map((f) => f.key);

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

  it("returns every flag of a project with the configuration of each of its environments, and no other project's", async () => {
    const { project } = await givenProject(store, 'checkout', ['development', 'production']);
    const other = await givenProject(store, 'payments', ['development', 'production']);
    const on = { ...disabled, enabled: true };
    await store.insertFlag(
      aFlag(project.id, 'both', ['development', 'production'], {
        environments: { development: disabled, production: on },
      }),
    );
    await store.insertFlag(aFlag(project.id, 'one', ['production']));
    await store.insertFlag(aFlag(other.project.id, 'both', ['development', 'production']));

    const flags = await store.allFlags(project.id);

    expect(flags.map((f) => [f.key, f.environments])).toStrictEqual([
      ['both', { development: disabled, production: on }],
      ['one', { production: disabled }],
    ]);
  });

  it('reads flags by id, each with its configurations, more than a chunk of them at once, skipping ids not stored', async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    const flags = Array.from({ length: 600 }, (_, i) => aFlag(project.id, `flag-${i}`, ['production']));
    for (const flag of flags) await store.insertFlag(flag);
    const elsewhere = aFlag(other.project.id, 'elsewhere', ['development', 'production']);
    await store.insertFlag(elsewhere);

    const read = await store.readFlags([...flags.map((f) => f.id), elsewhere.id, 'flg_gone']);

    expect(read.map((f) => f.id).sort()).toEqual([...flags.map((f) => f.id), elsewhere.id].sort());
    expect(read.find((f) => f.id === elsewhere.id)?.environments).toStrictEqual({
      development: disabled,
      production: disabled,
    });
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

  it('reads flags stored alike as stored, their shared parts frozen, and an update of one leaves the other as it was', async () => {
    const { project } = await givenProject(store, 'checkout', ['production']);
    const targeting = { if: [{ in: [{ var: 'plan' }, ['pro']] }, 'on', 'off'] };
    const production = { ...disabled, enabled: true, targeting };
    const [first, second] = ['first', 'second'].map((key) =>
      aFlag(project.id, key, ['production'], { name: key, environments: { production } }),
    ) as [Flag, Flag];
    await store.insertFlag(first);
    await store.insertFlag(second);

    const [readFirst, readSecond] = await store.readFlags([first.id, second.id]);
    expect([readFirst, readSecond]).toStrictEqual([first, second]);
    // Read values are shared by the flags that have the same text (decision 2091): none can be changed.
    const read = readFirst as Flag;
    expect(() => (read.variants as unknown[]).push({ key: 'x', value: 1 })).toThrow(TypeError);
    expect(() => Object.assign(read.environments.production as object, { enabled: false })).toThrow(
      TypeError,
    );

    const changed = { ...production, targeting: { if: [{ in: [{ var: 'plan' }, ['team']] }, 'on', 'off'] } };
    await store.updateFlag({ ...read, version: 2, environments: { production: changed } }, 1);
    expect((await store.findFlagById(first.id))?.environments.production).toStrictEqual(changed);
    expect(await store.findFlagById(second.id)).toStrictEqual(second);
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
});
