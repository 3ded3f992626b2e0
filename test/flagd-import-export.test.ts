import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FlagdCore } from '@openfeature/flagd-core';
import { describe, expect, it } from 'vitest';
import { FLAGD_REASONS } from '../bench/fixtures.ts';
import type { Flag, FlagEnvironment, JsonValue, Rollout, TargetingRule } from '../src/domain/flag.ts';
import type { AttributeRule, Rule, Segment } from '../src/domain/segment.ts';
import { compileEnvironment } from '../src/evaluation/compile-environment.ts';
import { compileTargeting } from '../src/evaluation/jsonlogic/compile-targeting.ts';
import { exportFlagd, type FlagdDocument, FlagdDocumentTexts } from '../src/flagd/export-flagd.ts';
import { type ImportedFlag, importFlagd } from '../src/flagd/import-flagd.ts';
import { reviewFlagdDocument } from '../src/flagd/validate-flagd-document.ts';
import { buildFlag, buildFlagEnvironment, buildSegment } from './support/builders.ts';
import { flagdReferenceContexts } from './support/flagd-reference-contexts.ts';
import { pinClockDuringSuite } from './support/pinned-clock.ts';
import { chance, pick, type Random, seededRandom } from './support/random.ts';

const REFERENCE = join(import.meta.dirname, 'fixtures/flagd-schema');
const NOW = 1_750_000_000;
const SILENT = { debug() {}, info() {}, warn() {}, error() {} };

const read = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));
const samples = (kind: 'positive' | 'negative') =>
  readdirSync(`${REFERENCE}/test/flags/${kind}`).map((file) => ({
    file,
    document: read(`${REFERENCE}/test/flags/${kind}/${file}`),
  }));

/** flagd's decision for one flag as Flagstaff stores it: the variant served, or null (no value). */
function flagdDecision(
  environment: FlagEnvironment,
  key: string,
  context: Record<string, unknown>,
): string | null {
  if (!environment.enabled) return null;
  if (environment.targeting === undefined) return environment.defaultVariant;
  return compileTargeting(environment.targeting)(context, key, NOW) ?? environment.defaultVariant;
}

const CONTEXTS: Record<string, unknown>[] = [
  ...flagdReferenceContexts(NOW),
  ...Array.from({ length: 40 }, (_, i) => ({
    targetingKey: `user-${i}`,
    email: `u${i}@faas.com`,
    color: i % 2 ? 'yellow' : 'red',
  })),
];

describe('reviewFlagdDocument: what refuses a document', () => {
  it.each(samples('positive'))('accepts the positive sample $file', ({ document }) => {
    expect(reviewFlagdDocument(document).errors).toEqual([]);
  });

  it.each(samples('negative'))(
    'refuses the negative sample $file with paths and messages',
    ({ document }) => {
      const errors = reviewFlagdDocument(document).errors;
      expect(errors.length).toBeGreaterThan(0);
      for (const error of errors) {
        expect(error.path).toMatch(/^\//);
        expect(error.message.length).toBeGreaterThan(5);
      }
    },
  );

  it.each([
    ['empty-variants.json', '/flags/myBoolFlag/variants', 'must NOT have fewer than 1 properties'],
    ['missing-variants.json', '/flags/myBoolFlag', "must have required property 'variants'"],
    [
      'mixed-variant-types.ffconfig.json',
      '/flags/myBoolFlag/variants',
      'variants must all be booleans, all strings, all numbers or all objects',
    ],
    [
      'state-set-incorrectly.json',
      '/flags/myBoolFlag/state',
      'must be equal to one of the allowed values: ENABLED, DISABLED',
    ],
    [
      'with-invalid-flag-metadata.json',
      '/flags/myBoolFlag/metadata/invalid',
      'must be string,number,boolean',
    ],
    ['with-invalid-flag-set-metadata.json', '/metadata/invalid', 'must be string,number,boolean'],
    ['with-invalid-targeting.json', '/flags/targetedFlag/targeting', 'unknown operator "not-a-real-rule"'],
  ])('explains what is wrong with %s', (file, path, message) => {
    expect(reviewFlagdDocument(read(`${REFERENCE}/test/flags/negative/${file}`)).errors).toEqual([
      { path, message },
    ]);
  });

  it('lists every problem of a flag', () => {
    expect(reviewFlagdDocument(read(`${REFERENCE}/test/flags/negative/malformed-flag.json`)).errors).toEqual([
      { path: '/flags/not-a-flag', message: "must have required property 'state'" },
      { path: '/flags/not-a-flag', message: "must have required property 'variants'" },
    ]);
  });

  it('tells that a list of flags needs the daemon schema', () => {
    const [error] = reviewFlagdDocument(
      read(`${REFERENCE}/test/flags/negative/with-array-flags.json`),
    ).errors;
    expect(error?.path).toBe('/flags');
    expect(error?.message).toContain('flagd.json');
  });

  it('refuses what flagd refuses beyond its schema', () => {
    const flag = { state: 'ENABLED', variants: { on: true, off: false } };
    expect(reviewFlagdDocument({ flags: { a: { ...flag, defaultVariant: 'maybe' } } }).errors).toEqual([
      { path: '/flags/a/defaultVariant', message: '"maybe" is not one of the flag\'s variants' },
    ]);
    expect(
      reviewFlagdDocument({
        $schema: 'https://flagd.dev/schema/v0/flagd.json',
        flags: [
          { key: 'a', ...flag },
          { key: 'a', ...flag },
        ],
      }).errors,
    ).toEqual([{ path: '/flags/1/key', message: 'duplicate flag key "a"' }]);
  });

  it('accepts targeting that cannot work, which flagd loads too, and reports it per flag', () => {
    const flag = { state: 'ENABLED', variants: { on: true, off: false } };
    const broken = (document: unknown) => {
      expect(reviewFlagdDocument(document).errors).toEqual([]);
      return [...reviewFlagdDocument(document).targeting.values()].map((r) => r.parseError);
    };
    expect(broken({ flags: { a: { ...flag, targeting: { $ref: 'nowhere' } } } })).toEqual([
      { path: '/flags/a/targeting', message: '$ref names no evaluator: "nowhere"' },
    ]);
    expect(
      broken({
        flags: { a: { ...flag, targeting: { $ref: 'x' } } },
        $evaluators: { x: { '!': [{ $ref: 'y' }] }, y: { '!': [{ $ref: 'x' }] } },
      }),
    ).toEqual([{ path: '/flags/a/targeting/!/0/!/0', message: '$ref cycle: x → y → x' }]);
    expect(broken({ flags: { a: { ...flag, targeting: { '/': [1, 0] } } } })).toEqual([
      { path: '/flags/a/targeting', message: 'this constant expression fails: NaN' },
    ]);
  });

  it('keeps its schemas identical to flagd’s reference copies', () => {
    for (const file of ['flags.json', 'targeting.json']) {
      expect(read(join(import.meta.dirname, `../src/flagd/schemas/${file}`))).toEqual(
        read(`${REFERENCE}/${file}`),
      );
    }
  });
});

describe('importFlagd', () => {
  it('imports the reference example with types, states, defaults and self-contained targeting', () => {
    const { flags, errors } = importFlagd(read(`${REFERENCE}/test/flags/positive/example.flagd.json`));
    expect(errors).toEqual([]);
    const byKey = new Map(flags.map((flag) => [flag.key, flag]));
    expect([...byKey.keys()]).toEqual([
      'myBoolFlag',
      'myStringFlag',
      'myFloatFlag',
      'myIntFlag',
      'myObjectFlag',
      'isColorYellow',
      'fibAlgo',
      'headerColor',
    ]);
    expect(byKey.get('myBoolFlag')).toEqual({
      key: 'myBoolFlag',
      type: 'boolean',
      variants: [
        { key: 'on', value: true },
        { key: 'off', value: false },
      ],
      metadata: {},
      environment: { enabled: true, offVariant: null, defaultVariant: 'on', targets: [], rules: [] },
    });
    expect(
      ['myStringFlag', 'myFloatFlag', 'myIntFlag', 'myObjectFlag'].map((key) => byKey.get(key)?.type),
    ).toEqual(['string', 'number', 'number', 'object']);
    expect(byKey.get('fibAlgo')?.environment.targeting).toEqual({
      if: [{ in: ['@faas.com', { var: ['email'] }] }, 'binet', null],
    });
    expect(JSON.stringify(flags)).not.toContain('$ref');
  });

  it('reads flag lists (the daemon schema) like flag maps', () => {
    const map = importFlagd(read(`${REFERENCE}/test/flags/positive/example.flagdimport.map.json`));
    const list = importFlagd(read(`${REFERENCE}/test/flags/positive/example.flagdimport.array.json`));
    expect(list.errors).toEqual([]);
    expect(list.flags).toEqual(map.flags);
  });

  it('merges flag metadata over flag-set metadata, as flagd does', () => {
    const { flags } = importFlagd(read(`${REFERENCE}/test/flags/positive/with-metadata.json`));
    expect(flags[0]?.metadata).toEqual({
      flagSetId: 'sso/dev',
      version: '1.0.0',
      boolean: true,
      string: 'string',
      float: 1.23,
      int: 1,
    });
    const { flags: overridden } = importFlagd({
      metadata: { owner: 'team-a', tier: 1 },
      flags: {
        f: { state: 'ENABLED', variants: { a: 'a' }, defaultVariant: 'a', metadata: { owner: 'team-b' } },
      },
    });
    expect(overridden[0]?.metadata).toEqual({ owner: 'team-b', tier: 1 });
  });

  it('imports disabled flags, missing defaults and empty targeting as flagd reads them', () => {
    const { flags } = importFlagd({
      flags: {
        off: {
          state: 'DISABLED',
          variants: { a: 1, b: 2 },
          defaultVariant: 'a',
          targeting: { if: [true, 'b', null] },
        },
        none: { state: 'ENABLED', variants: { a: 1 } },
        blank: { state: 'ENABLED', variants: { a: 1 }, defaultVariant: '', targeting: {} },
        nil: { state: 'ENABLED', variants: { a: 1 }, defaultVariant: null },
      },
    });
    const environments = Object.fromEntries(flags.map((flag) => [flag.key, flag.environment]));
    expect(environments.off).toMatchObject({ enabled: false, offVariant: null, defaultVariant: 'a' });
    expect(environments.none?.defaultVariant).toBeNull();
    expect(environments.blank).toEqual({
      enabled: true,
      offVariant: null,
      defaultVariant: null,
      targets: [],
      rules: [],
    });
    expect(environments.nil?.defaultVariant).toBeNull();
  });

  it('refuses the whole document when a flag key is not a Flagstaff key', () => {
    const result = importFlagd({
      flags: {
        'has space': { state: 'ENABLED', variants: { a: 'a' } },
        fine: { state: 'ENABLED', variants: { a: 'a' } },
      },
    });
    expect(result.flags).toEqual([]);
    expect(result.errors[0]?.path).toBe('/flags/has space');
  });

  it.each(samples('negative'))('imports nothing from the negative sample $file', ({ document }) => {
    const result = importFlagd(document);
    expect(result.flags).toEqual([]);
    expect(result.errors.length).toBeGreaterThan(0);
  });
});

/** The project and creation time of every flag and segment these tests build. */
const IN_PROJECT = {
  projectId: 'prj_test',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
};

function toFlag(imported: ImportedFlag, environmentKey: string): Flag {
  return buildFlag(imported.key, {
    ...IN_PROJECT,
    type: imported.type,
    variants: imported.variants,
    metadata: imported.metadata,
    environments: { [environmentKey]: imported.environment },
  });
}

/** Small random flagd documents: `$evaluators` referenced from nested `if`s, fractional splits, flagd's operators. */
function randomDocument(random: Random, index: number): Record<string, JsonValue> {
  const conditions: JsonValue[] = [
    { in: ['@faas.com', { var: 'email' }] },
    { ends_with: [{ var: 'email' }, '.com'] },
    { starts_with: [{ var: 'targetingKey' }, 'user-1'] },
    { '==': [{ var: 'color' }, 'yellow'] },
    { sem_ver: [{ var: 'version' }, pick(random, ['>=', '^', '~', '<']), '2.0.0'] },
    { '>': [{ var: '$flagd.timestamp' }, { var: 'time' }] },
    { '==': [{ var: '$flagd.flagKey' }, `doc-${index}-f0`] },
    { $ref: 'faas' },
  ];
  const variants = ['a', 'b', 'c'];
  const target = (depth: number): JsonValue => {
    const r = random();
    if (depth === 0 || r < 0.3) return pick(random, [...variants, null]);
    if (r < 0.5)
      return { fractional: [...(chance(random, 0.5) ? [{ var: 'email' }] : []), ['a', 30], ['b', 70]] };
    return { if: [pick(random, conditions), target(depth - 1), target(depth - 1)] };
  };
  const flags: Record<string, JsonValue> = {};
  for (let i = 0; i < 4; i++) {
    flags[`doc-${index}-f${i}`] = {
      state: chance(random, 0.85) ? 'ENABLED' : 'DISABLED',
      variants: { a: 'A', b: 'B', c: 'C' },
      defaultVariant: pick(random, ['a', 'b', null]),
      ...(chance(random, 0.8) ? { targeting: { if: [pick(random, conditions), target(2), target(2)] } } : {}),
      ...(chance(random, 0.3) ? { metadata: { owner: 'me', i } } : {}),
    };
  }
  return {
    flags,
    $evaluators: { faas: { in: ['@faas.com', { var: ['email'] }] } },
    metadata: { flagSetId: `set-${index}` },
  };
}

describe('import → export → import', () => {
  const documents = [
    ...samples('positive').map(({ document }) => document),
    ...Array.from({ length: 40 }, (_, i) => randomDocument(seededRandom(1000 + i), i)),
  ];

  it.each(documents.map((document, i) => ({ i, document })))(
    'keeps flags and their evaluation (document $i)',
    ({ document }) => {
      const first = importFlagd(document);
      expect(first.errors).toEqual([]);
      const { document: exported, warnings } = exportFlagd(
        'production',
        first.flags.map((flag) => toFlag(flag, 'production')),
        [],
      );
      expect(warnings).toEqual([]);
      expect(reviewFlagdDocument(exported).errors).toEqual([]);
      const second = importFlagd(JSON.parse(JSON.stringify(exported)));
      expect(second.errors).toEqual([]);
      expect(second.flags).toEqual(first.flags);
      for (const [i, flag] of first.flags.entries()) {
        const again = second.flags[i] as ImportedFlag;
        for (const context of CONTEXTS) {
          expect(flagdDecision(again.environment, again.key, context)).toBe(
            flagdDecision(flag.environment, flag.key, context),
          );
        }
      }
    },
  );
});

// Native flags and segments, exported, must pick the variants the native evaluator picks.

const ATTRIBUTES = ['plan', 'country', 'age', 'version', 'tags', 'user.plan', 'email', 'beta', 'score'];

function attributeValue(random: Random, attribute: string): unknown {
  switch (attribute) {
    case 'age':
    case 'score':
      // No numbers written as text here: that difference is documented and tested on its own.
      return pick(random, [0, 17, 18, 21, 42, 65.5, -3, 'old', '', true, false, [18, 70], [], { n: 1 }]);
    case 'version':
      return pick(random, [
        '1.0.0',
        '2.0.0',
        'v2.1.0',
        '2',
        '1.2',
        '2.0.0-beta.1',
        'bad',
        2,
        ['1.0.0'],
        { v: 1 },
      ]);
    case 'tags':
      return pick(random, [
        [],
        ['a'],
        ['a', 'b'],
        ['beta', 'red', 'x'],
        [1, 2],
        ['[object Object]'],
        [null, 'a'],
        [['a']],
        'a',
        'ab',
      ]);
    case 'beta':
      return pick(random, [true, false, 'true', 'false', 1, 0, null]);
    case 'email':
      return pick(random, ['ann@faas.com', 'bob@example.com', 'x@FAAS.com', '', '@faas.com', 42]);
    default:
      return pick(random, [
        'free',
        'pro',
        'team',
        'NL',
        'DE',
        'nl',
        '',
        'null',
        '[object Object]',
        0,
        42,
        1.5,
        true,
        null,
        ['pro', 'x'],
        { a: 1 },
        'pro-plus',
      ]);
  }
}

function randomNativeContext(random: Random): Record<string, unknown> {
  const context: Record<string, unknown> = {};
  if (chance(random, 0.85))
    context.targetingKey = pick(random, [
      'u1',
      'u2',
      'u3',
      'u4',
      '42',
      'true',
      `user-${Math.floor(random() * 1000)}`,
      42,
      true,
    ]);
  for (const attribute of ATTRIBUTES) {
    if (!chance(random, 0.6)) continue;
    const value = attributeValue(random, attribute);
    if (attribute === 'user.plan') context.user = chance(random, 0.8) ? { plan: value } : value;
    else context[attribute] = value;
  }
  return context;
}

function randomOperand(
  random: Random,
  attribute: string,
): Pick<AttributeRule, 'operator' | 'value' | 'values'> {
  const numeric = attribute === 'age' || attribute === 'score';
  const r = random();
  if (r < 0.08) return { operator: pick(random, ['exists', 'not_exists'] as const) };
  if (numeric && r < 0.45)
    return {
      operator: pick(random, ['gt', 'gte', 'lt', 'lte'] as const),
      value: pick(random, [0, 18, 21, 42, -1, 1.5]),
    };
  if (attribute === 'version' && r < 0.45) {
    return {
      operator: pick(random, ['semver_eq', 'semver_gt', 'semver_gte', 'semver_lt', 'semver_lte'] as const),
      value: pick(random, ['2.0.0', '1.2', 'v2', '2.0.0-beta.1']),
    };
  }
  if (r < 0.6)
    return {
      operator: pick(random, ['in', 'not_in'] as const),
      values: pick(random, [
        ['pro', 'team'],
        ['NL', 'DE'],
        [42, 'a'],
        [true],
        ['', 'null'],
        ['[object Object]'],
        [18, '21'],
        ['1.5'],
      ]),
    };
  const operator = pick(random, [
    'equals',
    'not_equals',
    'contains',
    'not_contains',
    'starts_with',
    'ends_with',
  ] as const);
  return {
    operator,
    value: pick(random, [
      'pro',
      'NL',
      '',
      'a',
      '42',
      42,
      true,
      'true',
      'null',
      '@faas.com',
      'ob',
      '1.5',
      '[object Object]',
      'e',
    ]),
  };
}

function randomCondition(random: Random, segmentKeys: readonly string[]): Rule {
  if (segmentKeys.length > 0 && chance(random, 0.15)) {
    return {
      type: 'segment',
      segment: pick(random, [...segmentKeys, 'no-such-segment']),
      ...(chance(random, 0.3) ? { negate: true } : {}),
    };
  }
  const attribute = pick(random, ATTRIBUTES);
  return {
    type: 'attribute',
    attribute,
    ...randomOperand(random, attribute),
    ...(chance(random, 0.2) ? { negate: true } : {}),
  };
}

function randomSegments(random: Random): Segment[] {
  const segments: Segment[] = [];
  for (let i = 0; i < 5; i++) {
    const earlier = segments.map((s) => s.key);
    segments.push(
      buildSegment(`segment-${i}`, {
        ...IN_PROJECT,
        id: `seg_${i}`,
        name: `segment ${i}`,
        match: chance(random, 0.5) ? 'all' : 'any',
        rules: Array.from({ length: Math.floor(random() * 3) }, () => randomCondition(random, earlier)),
        included: chance(random, 0.3) ? ['u1', '42'] : [],
        excluded: chance(random, 0.3) ? ['u2', 'true'] : [],
      }),
    );
  }
  return segments;
}

function randomRollout(random: Random): Rollout {
  return {
    ...(chance(random, 0.5)
      ? { bucketBy: pick(random, ['email', 'plan', 'user.plan', 'targetingKey']) }
      : {}),
    ...(chance(random, 0.4) ? { seed: pick(random, ['s1', 'exp-7']) } : {}),
    weights: pick(random, [
      [
        { variant: 'a', weight: 50 },
        { variant: 'b', weight: 50 },
      ],
      [
        { variant: 'a', weight: 1 },
        { variant: 'b', weight: 0 },
        { variant: 'c', weight: 3 },
      ],
      [{ variant: 'c', weight: 0 }],
    ]),
  };
}

function randomNativeFlag(random: Random, index: number, segments: readonly Segment[]): Flag {
  const keys = segments.map((s) => s.key);
  const rules: TargetingRule[] = Array.from({ length: Math.floor(random() * 4) }, (_, i) => {
    const segments = chance(random, 0.4) ? [pick(random, keys)] : [];
    const conditions = Array.from({ length: Math.floor(random() * 3) }, () => randomCondition(random, []));
    return {
      id: `rule-${i}`,
      // A rule for everyone says so, as the API requires (decision 0603); it exports as `true`.
      ...(segments.length + conditions.length === 0 ? { matchAll: true } : {}),
      segments,
      conditions,
      serve: chance(random, 0.7)
        ? { variant: pick(random, ['a', 'b', 'c']) }
        : { rollout: randomRollout(random) },
    };
  });
  const environment: FlagEnvironment = {
    enabled: chance(random, 0.9),
    offVariant: null,
    defaultVariant: pick(random, ['a', 'b', null]),
    targets: chance(random, 0.4)
      ? [
          { variant: 'c', values: ['u3', '42'] },
          { variant: 'b', values: ['u3', 'u4'] },
        ]
      : [],
    rules,
    ...(chance(random, 0.3) ? { defaultRollout: randomRollout(random) } : {}),
  };
  return buildFlag(`native-${index}`, {
    ...IN_PROJECT,
    id: `flg_${index}`,
    name: `native ${index}`,
    type: 'string',
    variants: ['a', 'b', 'c'].map((key) => ({ key, value: key.toUpperCase() })),
    environments: { production: environment },
  });
}

describe('exportFlagd of native flags', () => {
  pinClockDuringSuite(NOW);

  it('picks the variants the native evaluator picks, in compileTargeting and in flagd-core', () => {
    let compared = 0;
    const mismatches: string[] = [];
    for (let round = 0; round < 30; round++) {
      const random = seededRandom(5000 + round);
      const segments = randomSegments(random);
      const flags = Array.from({ length: 12 }, (_, i) => randomNativeFlag(random, round * 100 + i, segments));
      const native = compileEnvironment({ environmentKey: 'production', flags, segments });
      const { document, warnings } = exportFlagd('production', flags, segments);
      expect(reviewFlagdDocument(document).errors).toEqual([]);
      const inexact = new Set(
        warnings.filter((w) => !w.message.includes('numbers written as text')).map((w) => w.flag),
      );
      const imported = new Map(
        importFlagd(JSON.parse(JSON.stringify(document))).flags.map((f) => [f.key, f]),
      );
      const core = new FlagdCore(undefined, SILENT as never);
      core.setConfigurations(JSON.stringify(document));
      const contexts = Array.from({ length: 60 }, () => randomNativeContext(random));
      for (const flag of flags) {
        if (inexact.has(flag.key)) continue;
        const environment = (imported.get(flag.key) as ImportedFlag).environment;
        for (const context of contexts) {
          compared++;
          const expected = native.evaluate(flag.key, context, NOW);
          const ours = flagdDecision(environment, flag.key, context);
          const flagd = core.resolveStringEvaluation(flag.key, 'code-default', context as never);
          const wanted = expected?.reason === 'disabled' ? null : (expected?.variant ?? null);
          const flagdVariant =
            flagd.reason === 'DISABLED' || flagd.reason === 'ERROR' ? null : (flagd.variant ?? null);
          // flagd says DEFAULT, not STATIC, when a flag without targeting has no default variant.
          // Nor may the native evaluator fail or skip a prerequisite: these flags have none and all compile.
          const reason =
            expected?.reason === 'static' && wanted === null
              ? 'DEFAULT'
              : expected === undefined ||
                  expected.reason === 'error' ||
                  expected.reason === 'prerequisite_failed'
                ? 'a native failure'
                : FLAGD_REASONS[expected.reason];
          if (
            (ours !== wanted || flagdVariant !== wanted || flagd.reason !== reason) &&
            mismatches.length < 5
          ) {
            mismatches.push(JSON.stringify({ flag: flag.key, context, native: expected, ours, flagd }));
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(15_000);
  });

  it('turns segments into $evaluators and rules into an if chain', () => {
    const segment = buildSegment('beta-testers', {
      ...IN_PROJECT,
      id: 'seg_1',
      name: 'Beta testers',
      rules: [{ type: 'attribute', attribute: 'plan', operator: 'equals', value: 'pro' }],
      included: ['ann'],
    });
    const flag = randomNativeFlag(seededRandom(1), 1, []);
    const environment: FlagEnvironment = {
      enabled: true,
      offVariant: null,
      defaultVariant: 'a',
      targets: [{ variant: 'c', values: ['bob'] }],
      rules: [{ id: 'r1', segments: ['beta-testers'], conditions: [], serve: { variant: 'b' } }],
    };
    const { document, warnings } = exportFlagd(
      'production',
      [{ ...flag, environments: { production: environment } }],
      [segment],
    );
    expect(warnings).toEqual([]);
    expect(document.$evaluators?.['beta-testers']).toEqual({
      if: [
        { in: [{ var: 'targetingKey' }, ['ann']] },
        true,
        {
          and: [
            { '!==': [{ var: 'plan' }, null] },
            { some: [{ merge: [{ var: 'plan' }] }, { in: [{ var: '' }, ['pro']] }] },
          ],
        },
      ],
    });
    expect(document.flags[flag.key]?.targeting).toEqual({
      if: [{ in: [{ var: 'targetingKey' }, ['bob']] }, 'c', { $ref: 'beta-testers' }, 'b', null],
    });
  });

  it('exports rollouts as fractional with the same seed and bucketing attribute', () => {
    const flag = randomNativeFlag(seededRandom(2), 2, []);
    const rollout: Rollout = {
      bucketBy: 'email',
      seed: 'exp-1',
      weights: [
        { variant: 'a', weight: 10 },
        { variant: 'b', weight: 90 },
      ],
    };
    const environment: FlagEnvironment = {
      enabled: true,
      offVariant: null,
      defaultVariant: null,
      targets: [],
      rules: [],
      defaultRollout: rollout,
    };
    const { document } = exportFlagd(
      'production',
      [{ ...flag, environments: { production: environment } }],
      [],
    );
    const targeting = document.flags[flag.key]?.targeting as { if: JsonValue[] };
    expect(targeting.if[1]).toEqual({
      fractional: [{ cat: ['exp-1', { var: 'email' }] }, ['a', 10], ['b', 90]],
    });
    expect(targeting.if[2]).toBeNull();
  });

  it('warns about each rule that flagd cannot evaluate exactly', () => {
    const flag = randomNativeFlag(seededRandom(3), 3, []);
    const rule = (id: string, condition: AttributeRule): TargetingRule => ({
      id,
      segments: [],
      conditions: [condition],
      serve: { variant: 'b' },
    });
    const segment = buildSegment('by-regex', {
      ...IN_PROJECT,
      id: 'seg_2',
      name: 'By regex',
      match: 'any',
      rules: [
        { type: 'attribute', attribute: 'email', operator: 'matches', value: '@(faas|example)\\.com$' },
      ],
    });
    const environment: FlagEnvironment = {
      enabled: false,
      offVariant: 'c',
      defaultVariant: 'a',
      targets: [],
      rules: [
        rule('regex', { type: 'attribute', attribute: 'email', operator: 'matches', value: '.*' }),
        rule('date', {
          type: 'attribute',
          attribute: 'signup',
          operator: 'before',
          value: '2026-01-01T00:00:00Z',
        }),
        rule('number', { type: 'attribute', attribute: 'age', operator: 'gte', value: 18 }),
        rule('exact', { type: 'attribute', attribute: 'plan', operator: 'equals', value: 'pro' }),
        { id: 'segment', segments: ['by-regex'], conditions: [], serve: { variant: 'b' } },
      ],
    };
    const { warnings } = exportFlagd(
      'production',
      [{ ...flag, environments: { production: environment } }],
      [segment],
    );
    expect(warnings.map((w) => [w.rule, w.message.split(':')[0]])).toEqual([
      [undefined, 'disabled'],
      ['regex', 'rule does not export exactly'],
      ['date', 'rule does not export exactly'],
      ['number', 'rule does not export exactly'],
      ['segment', 'rule does not export exactly'],
    ]);
    expect(warnings[4]?.message).toContain('segment "by-regex"');
  });

  it('documents that numbers written as text differ', () => {
    const flag = randomNativeFlag(seededRandom(4), 4, []);
    const environment: FlagEnvironment = {
      enabled: true,
      offVariant: null,
      defaultVariant: 'a',
      targets: [],
      rules: [
        {
          id: 'adult',
          segments: [],
          conditions: [{ type: 'attribute', attribute: 'age', operator: 'gte', value: 18 }],
          serve: { variant: 'b' },
        },
      ],
    };
    const exported = { ...flag, environments: { production: environment } };
    const { document } = exportFlagd('production', [exported], []);
    const targeting = compileTargeting(document.flags[flag.key]?.targeting as JsonValue);
    const native = compileEnvironment({ environmentKey: 'production', flags: [exported], segments: [] });
    expect(targeting({ age: 20 }, flag.key, NOW)).toBe('b');
    expect(native.evaluate(flag.key, { age: 20 }, NOW)?.variant).toBe('b');
    expect(targeting({ age: '20' }, flag.key, NOW)).toBeNull();
    expect(native.evaluate(flag.key, { age: '20' }, NOW)?.variant).toBe('b');
  });

  it('keeps JsonLogic targeting as it is', () => {
    const { flags } = importFlagd(read(`${REFERENCE}/test/flags/positive/example.flagd.json`));
    const { document } = exportFlagd(
      'production',
      flags.map((f) => toFlag(f, 'production')),
      [],
    );
    const headerColor = (document as FlagdDocument).flags.headerColor;
    expect(headerColor?.targeting).toEqual(flags.find((f) => f.key === 'headerColor')?.environment.targeting);
  });
});

describe('the flagd document as text, each flag kept while unchanged (decision 2094)', () => {
  it('is exactly the exported document, round after round of changed flags and segments', () => {
    const random = seededRandom(2094);
    const texts = new FlagdDocumentTexts();
    let segments = randomSegments(random);
    let flags = Array.from({ length: 20 }, (_, i) => randomNativeFlag(random, i, segments));
    const disabled = buildFlag('off-with-metadata', {
      ...IN_PROJECT,
      metadata: { owner: 'growth', tier: 2 },
      environments: { production: { ...buildFlagEnvironment(), enabled: false } },
    });
    for (let round = 0; round < 12; round++) {
      // Some flags are written again (new objects), and every fourth round the segments change.
      flags = flags.map((flag, i) =>
        chance(random, 0.2) ? randomNativeFlag(random, 100 * round + i, segments) : flag,
      );
      if (round % 4 === 3) segments = randomSegments(random);
      const exported = [...flags, disabled];
      const text = texts.document('production', exported, segments);
      expect(text).toBe(JSON.stringify(exportFlagd('production', exported, segments).document));
    }
    // Another environment of the same flags has texts of its own.
    expect(texts.document('staging', flags, segments)).toBe(
      JSON.stringify(exportFlagd('staging', flags, segments).document),
    );
  });
});
