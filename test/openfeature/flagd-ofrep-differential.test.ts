import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FlagdCore } from '@openfeature/flagd-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupActor } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { chance, pick, type Random, seededRandom } from '../support/random.ts';
import type { TestServer } from '../support/server.ts';
import { startServer } from './support/server.ts';
import { seedVariedProject, VARIED_CONTEXTS } from './support/varied-project.ts';

const REFERENCE = join(import.meta.dirname, '../fixtures/flagd-schema');
const SILENT = { debug() {}, info() {}, warn() {}, error() {} };

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

/**
 * The reference documents: flagd's examples (full.json whole: its `ends_with` and `sem_ver` with
 * numbers, which flagd's schema refuses and flagd evaluates, are imported as flagd loads them),
 * its positive samples, and flagd's conformance flag file (test/data/flagd-testbed).
 */
const REFERENCE_DOCUMENTS: readonly (readonly [string, unknown])[] = [
  ['full.json', readJson(join(REFERENCE, 'full.json'))],
  ['testkit-flags.json', readJson('test/data/flagd-testbed/testkit-flags.json')],
  ['minimal.json', readJson(join(REFERENCE, 'minimal.json'))],
  ...readdirSync(join(REFERENCE, 'test/flags/positive')).map(
    (file) => [file, readJson(join(REFERENCE, 'test/flags/positive', file))] as const,
  ),
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const VARIANTS: Record<string, readonly (readonly [string, Json])[]> = {
  boolean: [
    ['on', true],
    ['off', false],
  ],
  string: [
    ['red', 'red'],
    ['blue', 'blue'],
    ['green', 'green'],
    ['yellow', '#ff0'],
  ],
  number: [
    ['one', 1],
    ['two', 2],
    ['half', 0.5],
    ['zero', 0],
  ],
  object: [
    ['a', { x: 1 }],
    ['b', { x: 2, list: [1, 'two'] }],
    ['c', {}],
  ],
};

const EVALUATORS: Record<string, Json> = {
  isFaas: { ends_with: [{ var: 'email' }, '@faas.com'] },
  isAdult: { '>=': [{ var: 'age' }, 18] },
  inBenelux: { in: [{ var: 'country' }, ['NL', 'BE', 'LU']] },
};

/** A condition over the context attributes that `randomContext` fills. */
function condition(random: Random, depth: number, flagKey: string, refs: boolean): Json {
  const options: (() => Json)[] = [
    () => ({ '==': [{ var: 'country' }, pick(random, ['NL', 'BE', 'DE'])] }),
    () => ({ '!=': [{ var: 'plan' }, 'free'] }),
    () => ({ '===': [{ var: 'age' }, pick(random, [30, '30'])] }),
    () => ({ in: [{ var: 'country' }, ['NL', 'BE']] }),
    () => ({ in: ['@faas', { var: 'email' }] }),
    () => ({ in: ['beta', { var: 'tags' }] }),
    () => ({ starts_with: [{ var: 'email' }, pick(random, ['ann', 'bob', ''])] }),
    () => ({ ends_with: [{ var: 'email' }, pick(random, ['@faas.com', '.com', '@example.com'])] }),
    () => ({
      sem_ver: [
        { var: 'version' },
        pick(random, ['=', '!=', '<', '<=', '>', '>=', '^', '~']),
        // flagd's schema wants a full version here; contexts bring partial ones.
        pick(random, ['1.2.3', '2.0.0', '1.0.0', '2.1.0-beta.1']),
      ],
    }),
    () => ({ [pick(random, ['>', '>=', '<', '<='])]: [{ var: 'age' }, pick(random, [18, 30, 65])] }),
    () => ({ '<': [10, { var: 'age' }, 50] }),
    () => ({ '!!': [{ var: pick(random, ['plan', 'missing', 'user.plan']) }] }),
    () => ({ '==': [{ var: '$flagd.flagKey' }, pick(random, [flagKey, 'other'])] }),
    () => ({
      [pick(random, ['>', '<'])]: [{ var: '$flagd.timestamp' }, pick(random, [1_000_000_000, 4_000_000_000])],
    }),
    () => ({ '==': [{ var: 'user.plan' }, 'pro'] }),
  ];
  if (refs) options.push(() => ({ $ref: pick(random, Object.keys(EVALUATORS)) }));
  if (depth < 2) {
    options.push(
      () => ({
        and: [condition(random, depth + 1, flagKey, refs), condition(random, depth + 1, flagKey, refs)],
      }),
      () => ({
        or: [condition(random, depth + 1, flagKey, refs), condition(random, depth + 1, flagKey, refs)],
      }),
      () => ({ '!': [condition(random, depth + 1, flagKey, refs)] }),
    );
  }
  return pick(random, options)();
}

/** An expression that yields a variant name (or null, or now and then one the flag lacks). */
function choice(
  random: Random,
  depth: number,
  flagKey: string,
  variants: readonly string[],
  refs: boolean,
): Json {
  const weights = () => variants.map((v) => [v, Math.floor(random() * 5) * 25 + (v === variants[0] ? 1 : 0)]);
  const options: (() => Json)[] = [
    () => pick(random, variants),
    () => pick(random, variants),
    () => null,
    () => ({ fractional: weights() }),
    () => ({ fractional: [{ cat: [{ var: '$flagd.flagKey' }, { var: 'email' }] }, ...weights()] }),
    () => ({ fractional: [{ var: 'email' }, ...weights()] }),
  ];
  if (chance(random, 0.05)) return 'no-such-variant';
  if (depth < 2) {
    options.push(() => ({
      if: [
        condition(random, 0, flagKey, refs),
        choice(random, depth + 1, flagKey, variants, refs),
        choice(random, depth + 1, flagKey, variants, refs),
      ],
    }));
    options.push(() => ({
      if: [
        condition(random, 0, flagKey, refs),
        choice(random, depth + 1, flagKey, variants, refs),
        condition(random, 0, flagKey, refs),
        choice(random, depth + 1, flagKey, variants, refs),
        choice(random, depth + 1, flagKey, variants, refs),
      ],
    }));
  }
  return pick(random, options)();
}

function generatedDocument(random: Random, index: number): Json {
  const refs = chance(random, 0.5);
  const flags: Record<string, Json> = {};
  const count = 3 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    const key = `flag-${index}-${i}`;
    const type = pick(random, Object.keys(VARIANTS));
    const all = VARIANTS[type] as readonly (readonly [string, Json])[];
    const chosen = all.filter((_, j) => j < 2 || chance(random, 0.6));
    const names = chosen.map(([name]) => name);
    const flag: Record<string, Json> = {
      state: chance(random, 0.88) ? 'ENABLED' : 'DISABLED',
      variants: Object.fromEntries(chosen),
    };
    const defaultChoice = random();
    if (defaultChoice < 0.8) flag.defaultVariant = pick(random, names);
    else if (defaultChoice < 0.9) flag.defaultVariant = null;
    if (chance(random, 0.75)) {
      // Targeting is an expression object; a bare variant name is not.
      const targeting = choice(random, 0, key, names, refs);
      flag.targeting =
        typeof targeting === 'object' && targeting !== null
          ? targeting
          : { if: [condition(random, 0, key, refs), targeting, pick(random, names)] };
    }
    if (chance(random, 0.3)) flag.metadata = { owner: pick(random, ['web', 'api']), version: i };
    flags[key] = flag;
  }
  return {
    $schema: 'https://flagd.dev/schema/v0/flags.json',
    flags,
    ...(refs ? { $evaluators: EVALUATORS } : {}),
    ...(chance(random, 0.4) ? { metadata: { flagSetId: `set-${index}`, version: 'v1' } } : {}),
  };
}

/** Contexts with the attributes the targeting reads, with the gaps and odd types real ones have. */
function randomContext(random: Random): Record<string, Json> {
  const context: Record<string, Json> = {};
  if (chance(random, 0.9)) context.targetingKey = `user-${Math.floor(random() * 100_000)}`;
  if (chance(random, 0.8))
    context.email = pick(random, ['ann@faas.com', 'bob@example.com', 'eve@faas.com.evil', 'x']);
  if (chance(random, 0.7)) context.country = pick(random, ['NL', 'BE', 'DE', 'LU', 'nl']);
  if (chance(random, 0.6)) context.age = pick(random, [12, 18, 30, 45, 65, 80, '30', 17.5]);
  if (chance(random, 0.6))
    context.version = pick(random, ['1.2.3', 'v2.0.0', '2.1.0-beta.1', '1.0', '3', 'bad']);
  if (chance(random, 0.5)) context.plan = pick(random, ['free', 'pro', '']);
  if (chance(random, 0.4)) context.tags = pick(random, [['beta'], ['alpha', 'beta'], []]);
  if (chance(random, 0.3)) context.user = { plan: pick(random, ['pro', 'free']) };
  return context;
}

const GENERATED_DOCUMENTS = 40;
const CONTEXTS_PER_DOCUMENT = 40;

const random = seededRandom(0x0f1a95);
const CORPUS: readonly (readonly [string, Json])[] = [
  ...(REFERENCE_DOCUMENTS as (readonly [string, Json])[]),
  ...Array.from(
    { length: GENERATED_DOCUMENTS },
    (_, i) => [`generated-${i}`, generatedDocument(random, i)] as const,
  ),
];
const CONTEXTS: readonly Record<string, Json>[] = [
  {},
  { targetingKey: 'ann', email: 'ann@faas.com', country: 'NL', age: 30, version: '2.0.0', tags: ['beta'] },
  ...Array.from({ length: CONTEXTS_PER_DOCUMENT - 2 }, () => randomContext(random)),
];

/**
 * flagd-core reads flags as a map; the daemon's schema also allows a list of flags with keys,
 * which the daemon turns into that map before flagd-core sees it. So do we, for flagd-core.
 */
function asFlagMap(document: Json): Json {
  const { flags, ...rest } = document as { flags: Json };
  if (!Array.isArray(flags)) return document;
  return {
    ...rest,
    flags: Object.fromEntries(
      flags.map((flag) => {
        const { key, ...definition } = flag as { key: string };
        return [key, definition];
      }),
    ),
  };
}

type Entry = Record<string, unknown>;
const TYPES = { boolean: 'boolean', string: 'string', number: 'number', object: 'object' } as const;

/** What Flagstaff must answer over OFREP for flagd-core's answer to one flag (docs/product.md §6). */
function expected(core: ReturnType<FlagdCore['resolve']>, key: string, sentinel: unknown): Entry {
  const metadata = core.flagMetadata ?? {};
  if (core.reason === 'ERROR' && core.errorCode === 'PARSE_ERROR') {
    // Targeting that does not compile: OFREP's error, with the flag's metadata.
    return { key, errorCode: 'PARSE_ERROR', metadata };
  }
  if (core.reason === 'ERROR') {
    // flagd-core gives the application its default with an error (targeting naming a variant
    // the flag lacks); Flagstaff serves the default variant instead, see compile-flag.ts.
    return { key, errorCode: core.errorCode };
  }
  if (core.value === sentinel) return { key, reason: core.reason, metadata };
  return { key, value: core.value, reason: core.reason, variant: core.variant, metadata };
}

/** The document's default variant for a flag; undefined when it has none. */
function defaultVariantOf(document: Json, key: string): string | undefined {
  const flags = (asFlagMap(document) as { flags: Record<string, Record<string, Json>> }).flags;
  const variant = flags[key]?.defaultVariant;
  return typeof variant === 'string' && variant !== '' ? variant : undefined;
}

const SENTINELS = { boolean: Symbol('b'), string: Symbol('s'), number: Symbol('n'), object: Symbol('o') };

describeEachDatabase('flagd definitions: Flagstaff over OFREP and flagd-core agree', (database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(database);
  });
  afterAll(() => server.close());

  const bulk = async (project: string, environment: string, context: Entry): Promise<Map<string, Entry>> => {
    const res = await server.call('POST', '/ofrep/v1/evaluate/flags', {
      body: { context },
      headers: { 'x-flagstaff-project': project, 'x-flagstaff-environment': environment },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return new Map(res.body.flags.map((f: Entry) => [f.key as string, f]));
  };

  // Thousands of OFREP calls: on a shared machine this takes longer than the default 20 s.
  it(`the corpus (${CORPUS.length} documents × ${CONTEXTS.length} contexts): same values, variants, reasons and metadata`, async () => {
    let compared = 0;
    let errors = 0;
    const reasons = new Set<string>();
    for (const [index, [name, document]] of CORPUS.entries()) {
      // Setup through the services (the HTTP routes have their own tests); evaluation over OFREP.
      const project = `doc-${index}`;
      await server.services.projects.create(setupActor, { key: project });
      await server.services.flagd.import(setupActor, project, 'production', document);
      const core = new FlagdCore(undefined, SILENT);
      core.setConfigurations(JSON.stringify(asFlagMap(document)));
      const types = new Map(
        Object.entries(
          (await server.services.flagd.export(setupActor, project, 'production')).document.flags,
        ).map(([key, flag]) => [key, typeof Object.values(flag.variants)[0] as keyof typeof TYPES]),
      );
      for (const context of CONTEXTS) {
        const ofrep = await bulk(project, 'production', context);
        expect([...ofrep.keys()].sort(), name).toEqual([...types.keys()].sort());
        for (const [key, type] of types) {
          const sentinel = SENTINELS[type];
          const answer = core.resolve(TYPES[type], key, sentinel as never, context, SILENT);
          const want = expected(answer, key, sentinel);
          const got = ofrep.get(key) as Entry;
          const where = `${name}: ${key} for ${JSON.stringify(context)}`;
          if (want.errorCode === 'PARSE_ERROR') {
            expect({ ...got, errorDetails: undefined }, where).toEqual({ ...want, errorDetails: undefined });
          } else if ('errorCode' in want) {
            expect(want.errorCode, where).toBe('GENERAL');
            errors++;
            expect(got.reason, where).toBe('DEFAULT');
            expect(got.variant, where).toBe(defaultVariantOf(document, key));
          } else {
            expect(got, where).toEqual(want);
          }
          reasons.add(String(got.reason ?? got.errorCode));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(5000);
    expect([...reasons].sort()).toEqual(['DEFAULT', 'DISABLED', 'PARSE_ERROR', 'STATIC', 'TARGETING_MATCH']);
    // Errors are the rare generated variant names a flag lacks, not a way around comparing.
    expect(errors).toBeLessThan(compared / 20);
  }, 60_000);

  it('round trip: import → export → import evaluates identically, and exports the same document', async () => {
    for (const [index, [name]] of CORPUS.entries()) {
      const project = `doc-${index}`;
      const first = await server.services.flagd.export(setupActor, project, 'production');
      await server.services.flagd.import(setupActor, project, 'development', first.document);
      const second = await server.services.flagd.export(setupActor, project, 'development');
      expect(second.document, name).toEqual(first.document);
      for (const context of CONTEXTS.slice(0, 15)) {
        const [production, development] = await Promise.all([
          bulk(project, 'production', context),
          bulk(project, 'development', context),
        ]);
        expect(development, `${name} for ${JSON.stringify(context)}`).toEqual(production);
      }
    }
  }, 60_000);

  it('native flags exported to flagd evaluate in flagd-core as Flagstaff serves them', async () => {
    await seedVariedProject(server);
    const { document, warnings } = await server.services.flagd.export(setupActor, 'default', 'production');
    const core = new FlagdCore(undefined, SILENT);
    core.setConfigurations(JSON.stringify(document));
    const warned = new Set(warnings.map((w) => w.flag));
    const contexts = [...(VARIED_CONTEXTS as readonly Record<string, Json>[]), ...CONTEXTS];
    for (const context of contexts) {
      const ofrep = await bulk('default', 'production', context);
      for (const [key, flag] of Object.entries(document.flags)) {
        const type = typeof Object.values(flag.variants)[0] as keyof typeof TYPES;
        const sentinel = SENTINELS[type];
        const answer = core.resolve(TYPES[type], key, sentinel as never, context, SILENT);
        const got = ofrep.get(key) as Entry;
        const where = `${key} for ${JSON.stringify(context)}`;
        if (got.errorCode === 'TARGETING_KEY_MISSING') {
          // Flagstaff's OFREP names the missing targetingKey; flagd serves the default.
          expect(answer.reason, where).toBe('DEFAULT');
          continue;
        }
        if (warned.has(key) && got.reason === 'DISABLED') {
          // The warned difference: Flagstaff serves the off variant, flagd no value.
          expect(answer, where).toMatchObject({ reason: 'DISABLED', value: sentinel });
          continue;
        }
        // flagd has no "split": a fractional pick is a targeting match.
        const reason = got.reason === 'SPLIT' ? 'TARGETING_MATCH' : got.reason;
        expect({ value: got.value, variant: got.variant, reason }, where).toEqual(
          answer.value === sentinel
            ? { value: undefined, variant: undefined, reason: answer.reason }
            : { value: answer.value, variant: answer.variant, reason: answer.reason },
        );
      }
    }
  });
});
