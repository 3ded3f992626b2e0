import { describe, expect, test, vi } from 'vitest';
import vectorFile from '../../test/data/bucketing-vectors.json' with { type: 'json' };
import { buildFlag, buildFlagEnvironment, buildSegment } from '../../test/support/builders.ts';
import type { EvaluationContext } from '../domain/evaluation-result.ts';
import type { Flag, FlagEnvironment, JsonValue, Variant } from '../domain/flag.ts';
import type { Rule, Segment } from '../domain/segment.ts';
import { compileEnvironment, withFlag, withoutFlag } from './compile-environment.ts';

// A stand-in for the JsonLogic compiler with the same contract, so that these tests pin down how
// flags with `targeting` are wired, whatever the JsonLogic engine does. `{ variantFrom: attr }`
// yields the attribute's value; `{ echo: true }` yields "<flagKey>@<nowSeconds>".
vi.mock('./jsonlogic/compile-targeting.ts', () => ({
  tryCompileTargeting(logic: JsonValue) {
    const spec = logic as { variantFrom?: string; echo?: boolean; broken?: boolean };
    if (spec.broken) return { ok: false, error: { path: '/broken', message: 'does not compile' } };
    return {
      ok: true,
      evaluate: (context: EvaluationContext, flagKey: string, nowSeconds: number) => {
        if (spec.echo) return `${flagKey}@${nowSeconds}`;
        const value = context[spec.variantFrom ?? ''];
        return typeof value === 'string' ? value : null;
      },
    };
  },
}));

const ENV = 'production';
const NOW = 1_750_000_000;

const config = buildFlagEnvironment;

function flag(
  key: string,
  environment: Partial<FlagEnvironment> | null = {},
  fields: Partial<Flag> = {},
): Flag {
  return buildFlag(key, {
    environments: environment === null ? {} : { [ENV]: config(environment) },
    ...fields,
  });
}

const colours: readonly Variant[] = [
  { key: 'red', value: 'r' },
  { key: 'green', value: 'g' },
  { key: 'blue', value: 'b' },
];

function stringFlag(key: string, environment: Partial<FlagEnvironment>): Flag {
  return flag(
    key,
    { offVariant: 'red', defaultVariant: 'green', ...environment },
    { type: 'string', variants: colours },
  );
}

const segment = (key: string, rules: readonly Rule[], included: readonly string[] = []): Segment =>
  buildSegment(key, { rules, included });

const dutch: Rule = { type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' };
const pro: Rule = { type: 'attribute', attribute: 'plan', operator: 'equals', value: 'pro' };

function evaluate(flags: readonly Flag[], context: EvaluationContext, segments: readonly Segment[] = []) {
  const compiled = compileEnvironment({ environmentKey: ENV, flags, segments });
  const result = compiled.evaluate(flags[0]?.key ?? '', context, NOW);
  if (result === undefined) throw new Error('flag not found');
  return result;
}

describe('evaluation reasons', () => {
  test('serves the off variant with reason disabled when the flag is disabled', () => {
    expect(evaluate([flag('f', { enabled: false })], {})).toMatchObject({
      value: false,
      variant: 'off',
      reason: 'disabled',
    });
  });

  test('serves null with reason disabled when a disabled flag has no off variant', () => {
    expect(evaluate([flag('f', { enabled: false, offVariant: null })], {})).toMatchObject({
      value: null,
      variant: null,
      reason: 'disabled',
    });
  });

  test('treats a flag without configuration in the environment as disabled', () => {
    expect(evaluate([flag('f', null)], {})).toMatchObject({
      value: false,
      variant: 'off',
      reason: 'disabled',
    });
  });

  test('serves an enabled flag without rules, targets or rollout its default variant with reason static', () => {
    expect(evaluate([flag('f')], { targetingKey: 'u1' })).toMatchObject({
      value: true,
      variant: 'on',
      reason: 'static',
    });
  });

  test('serves null with reason default when that flag has no default variant, as flagd does', () => {
    expect(evaluate([flag('f', { defaultVariant: null })], {})).toMatchObject({
      value: null,
      variant: null,
      reason: 'default',
    });
  });

  test('serves a listed user the individual target with reason targeting', () => {
    const f = stringFlag('f', { targets: [{ variant: 'blue', values: ['u1', 'u2'] }] });
    expect(evaluate([f], { targetingKey: 'u2' })).toMatchObject({
      value: 'b',
      variant: 'blue',
      reason: 'targeting',
      targetMatched: true,
    });
  });

  test('serves an unlisted user the default variant with reason default when the flag has targets', () => {
    const f = stringFlag('f', { targets: [{ variant: 'blue', values: ['u1'] }] });
    expect(evaluate([f], { targetingKey: 'u3' })).toMatchObject({
      value: 'g',
      variant: 'green',
      reason: 'default',
    });
  });

  test('checks individual targets before rules', () => {
    const f = stringFlag('f', {
      targets: [{ variant: 'blue', values: ['u1'] }],
      rules: [{ id: 'r1', segments: [], conditions: [], serve: { variant: 'red' } }],
    });
    expect(evaluate([f], { targetingKey: 'u1' }).variant).toBe('blue');
    expect(evaluate([f], { targetingKey: 'u9' }).variant).toBe('red');
  });

  test('serves a user listed under two targets the first', () => {
    const f = stringFlag('f', {
      targets: [
        { variant: 'blue', values: ['u1'] },
        { variant: 'red', values: ['u1'] },
      ],
    });
    expect(evaluate([f], { targetingKey: 'u1' }).variant).toBe('blue');
  });

  test('matches a numeric targetingKey by its JSON text', () => {
    const f = stringFlag('f', { targets: [{ variant: 'blue', values: ['42'] }] });
    expect(evaluate([f], { targetingKey: 42 }).variant).toBe('blue');
  });

  test('serves the first matching rule with reason targeting and names the rule', () => {
    const f = stringFlag('f', {
      rules: [
        { id: 'pro-users', segments: [], conditions: [pro], serve: { variant: 'blue' } },
        { id: 'dutch', segments: [], conditions: [dutch], serve: { variant: 'red' } },
      ],
    });
    expect(evaluate([f], { country: 'NL', plan: 'pro' })).toMatchObject({
      variant: 'blue',
      reason: 'targeting',
      ruleId: 'pro-users',
    });
    expect(evaluate([f], { country: 'NL', plan: 'free' })).toMatchObject({ variant: 'red', ruleId: 'dutch' });
    const fallback = evaluate([f], { country: 'DE' });
    expect(fallback).toMatchObject({ variant: 'green', reason: 'default' });
    expect(fallback.ruleId).toBeUndefined();
  });

  test('matches a rule with neither segments nor conditions for everyone', () => {
    const f = stringFlag('f', {
      rules: [{ id: 'all', segments: [], conditions: [], serve: { variant: 'blue' } }],
    });
    expect(evaluate([f], {})).toMatchObject({ variant: 'blue', reason: 'targeting' });
  });

  test('requires the user to be in every segment of a rule and to meet every condition', () => {
    const segments = [segment('nl', [dutch]), segment('vip', [], ['boss'])];
    const f = stringFlag('f', {
      rules: [{ id: 'r', segments: ['nl', 'vip'], conditions: [pro], serve: { variant: 'blue' } }],
    });
    expect(evaluate([f], { targetingKey: 'boss', country: 'NL', plan: 'pro' }, segments).variant).toBe(
      'blue',
    );
    expect(evaluate([f], { targetingKey: 'boss', country: 'NL', plan: 'free' }, segments).variant).toBe(
      'green',
    );
    expect(evaluate([f], { targetingKey: 'intern', country: 'NL', plan: 'pro' }, segments).variant).toBe(
      'green',
    );
    expect(evaluate([f], { targetingKey: 'boss', country: 'BE', plan: 'pro' }, segments).variant).toBe(
      'green',
    );
  });

  test('accepts segment rules among conditions, negated or not', () => {
    const segments = [segment('nl', [dutch])];
    const f = stringFlag('f', {
      rules: [
        {
          id: 'not-nl',
          segments: [],
          conditions: [{ type: 'segment', segment: 'nl', negate: true }],
          serve: { variant: 'blue' },
        },
      ],
    });
    expect(evaluate([f], { country: 'BE' }, segments).variant).toBe('blue');
    expect(evaluate([f], { country: 'NL' }, segments).variant).toBe('green');
  });

  test('never matches a rule that names an unknown segment', () => {
    const f = stringFlag('f', {
      rules: [{ id: 'r', segments: ['ghost'], conditions: [], serve: { variant: 'blue' } }],
    });
    expect(evaluate([f], {}).variant).toBe('green');
  });

  test('serves a rule rollout pick with reason split', () => {
    const f = stringFlag('f', {
      rules: [
        {
          id: 'r',
          segments: [],
          conditions: [dutch],
          serve: { rollout: { weights: [{ variant: 'blue', weight: 1 }] } },
        },
      ],
    });
    expect(evaluate([f], { targetingKey: 'u1', country: 'NL' })).toMatchObject({
      variant: 'blue',
      reason: 'split',
      ruleId: 'r',
    });
  });

  test('serves the default rollout pick with reason split when no rule matches', () => {
    const f = stringFlag('f', { defaultRollout: { weights: [{ variant: 'red', weight: 5 }] } });
    expect(evaluate([f], { targetingKey: 'u1' })).toMatchObject({
      value: 'r',
      variant: 'red',
      reason: 'split',
    });
  });

  test('gives the result the flag type and its variant key', () => {
    const f = flag(
      'obj',
      { offVariant: 'a', defaultVariant: 'a' },
      { type: 'object', variants: [{ key: 'a', value: { limits: { rps: 10 } } }] },
    );
    expect(evaluate([f], {})).toEqual({
      key: 'obj',
      type: 'object',
      value: { limits: { rps: 10 } },
      reason: 'static',
      variant: 'a',
      flagMetadata: {},
    });
  });

  test('carries the flag metadata', () => {
    expect(evaluate([flag('f', {}, { metadata: { team: 'growth', ticket: 42 } })], {}).flagMetadata).toEqual({
      team: 'growth',
      ticket: 42,
    });
  });

  test('hands out frozen results, so that no caller can change what the next one receives', () => {
    const f = flag(
      'obj',
      { defaultVariant: 'a' },
      { type: 'object', variants: [{ key: 'a', value: { nested: { n: 1 } } }] },
    );
    const result = evaluate([f], {});
    expect(Object.isFrozen(result)).toBe(true);
    expect(() => {
      (result.value as { nested: { n: number } }).nested.n = 2;
    }).toThrow(TypeError);
    expect(f.variants[0]?.value).toEqual({ nested: { n: 1 } });
    expect(Object.isFrozen(f.variants[0]?.value)).toBe(false);
  });
});

describe('rollout edges', () => {
  const split = (weights: { variant: string; weight: number }[], extra: object = {}) =>
    stringFlag('f', { defaultRollout: { weights, ...extra } });

  test('serves the default variant with reason default to a user without the bucketBy attribute', () => {
    expect(evaluate([split([{ variant: 'blue', weight: 1 }])], {})).toMatchObject({
      variant: 'green',
      reason: 'default',
    });
    const byCompany = split([{ variant: 'blue', weight: 1 }], { bucketBy: 'company.id' });
    expect(evaluate([byCompany], { targetingKey: 'u1' })).toMatchObject({
      variant: 'green',
      reason: 'default',
    });
    expect(evaluate([byCompany], { company: { id: 'acme' } })).toMatchObject({
      variant: 'blue',
      reason: 'split',
    });
  });

  test('serves the default variant with reason default when a matched rule cannot bucket the user', () => {
    const f = stringFlag('f', {
      rules: [
        {
          id: 'r',
          segments: [],
          conditions: [],
          serve: { rollout: { bucketBy: 'org', weights: [{ variant: 'blue', weight: 1 }] } },
        },
        { id: 'later', segments: [], conditions: [], serve: { variant: 'red' } },
      ],
    });
    expect(evaluate([f], { targetingKey: 'u1' })).toMatchObject({
      variant: 'green',
      reason: 'default',
      ruleId: 'r',
    });
  });

  test.each([
    [
      'serves the default variant with reason default when every weight is zero',
      { blue: 0, red: 0 },
      'reason',
      'default',
    ],
    ['always serves the only variant of a one-variant rollout', { blue: 100 }, 'variant', 'blue'],
    ['never serves a variant of weight zero', { blue: 0, red: 3 }, 'variant', 'red'],
  ] as const)('%s', (_name, weights, field, expected) => {
    const f = split(Object.entries(weights).map(([variant, weight]) => ({ variant, weight })));
    for (let i = 0; i < 50; i++) expect(evaluate([f], { targetingKey: `u${i}` })[field]).toBe(expected);
  });

  test('buckets a number attribute by its JSON text', () => {
    const weights = [
      { variant: 'blue', weight: 1 },
      { variant: 'red', weight: 1 },
    ];
    const f = split(weights, { bucketBy: 'accountId' });
    for (let i = 0; i < 50; i++) {
      expect(evaluate([f], { accountId: i }).variant).toBe(evaluate([f], { accountId: String(i) }).variant);
    }
  });

  test('buckets every published vector as published through a compiled environment', () => {
    for (const v of vectorFile.vectors) {
      const variants = [...new Set(['fallback', ...v.weights.map((w) => w.variant)])].map((key) => ({
        key,
        value: key,
      }));
      const f = flag(
        v.flagKey,
        {
          defaultVariant: 'fallback',
          defaultRollout: { ...(v.seed === null ? {} : { seed: v.seed }), weights: v.weights },
        },
        { type: 'string', variants },
      );
      const result = evaluate([f], { targetingKey: v.value });
      expect(result.variant === 'fallback' ? null : result.variant, v.flagKey).toBe(v.variant);
    }
  });

  test('spreads a 50/30/20 rollout over 100,000 users within one percentage point', () => {
    const f = split([
      { variant: 'red', weight: 50 },
      { variant: 'green', weight: 30 },
      { variant: 'blue', weight: 20 },
    ]);
    const compiled = compileEnvironment({ environmentKey: ENV, flags: [f], segments: [] });
    const counts: Record<string, number> = { red: 0, green: 0, blue: 0 };
    for (let i = 0; i < 100_000; i++) {
      const variant = compiled.evaluate('f', { targetingKey: `user-${i}` }, NOW)?.variant ?? '';
      counts[variant] = (counts[variant] ?? 0) + 1;
    }
    expect(Math.abs((counts.red ?? 0) / 1000 - 50)).toBeLessThan(1);
    expect(Math.abs((counts.green ?? 0) / 1000 - 30)).toBeLessThan(1);
    expect(Math.abs((counts.blue ?? 0) / 1000 - 20)).toBeLessThan(1);
  });
});

describe('flags with JsonLogic targeting', () => {
  const imported = (environment: Partial<FlagEnvironment>) =>
    stringFlag('imported', { offVariant: null, rules: [], ...environment });

  test('serves the variant targeting yields with reason targeting', () => {
    const f = imported({ targeting: { variantFrom: 'pick' } });
    expect(evaluate([f], { pick: 'blue' })).toMatchObject({
      value: 'b',
      variant: 'blue',
      reason: 'targeting',
    });
  });

  test('serves the default variant with reason default when targeting yields no variant', () => {
    expect(evaluate([imported({ targeting: { variantFrom: 'pick' } })], {})).toMatchObject({
      variant: 'green',
      reason: 'default',
    });
  });

  test('serves the default variant with reason default when targeting yields a variant the flag lacks', () => {
    expect(evaluate([imported({ targeting: { variantFrom: 'pick' } })], { pick: 'purple' })).toMatchObject({
      variant: 'green',
      reason: 'default',
    });
  });

  test('serves null with reason default when targeting yields nothing and there is no default variant', () => {
    const f = imported({ defaultVariant: null, targeting: { variantFrom: 'pick' } });
    expect(evaluate([f], {})).toMatchObject({ value: null, variant: null, reason: 'default' });
  });

  test('passes the flag key and the evaluation time to targeting', () => {
    const f = stringFlag('f', { targeting: { echo: true } });
    const variants = [...colours, { key: `f@${NOW}`, value: 'echoed' }];
    expect(evaluate([{ ...f, variants }], {})).toMatchObject({ value: 'echoed', reason: 'targeting' });
  });

  test('serves null with reason disabled when disabled without an off variant, as imported flags are', () => {
    expect(
      evaluate([imported({ enabled: false, targeting: { variantFrom: 'pick' } })], { pick: 'blue' }),
    ).toMatchObject({
      value: null,
      reason: 'disabled',
    });
  });

  test('treats empty targeting as none, as flagd does, giving reason static', () => {
    expect(evaluate([imported({ targeting: {} })], {})).toMatchObject({ variant: 'green', reason: 'static' });
  });

  test('ignores targets and rules when the flag has targeting', () => {
    const f = imported({
      targeting: { variantFrom: 'pick' },
      targets: [{ variant: 'red', values: ['u1'] }],
      rules: [{ id: 'r', segments: [], conditions: [], serve: { variant: 'red' } }],
    });
    expect(evaluate([f], { targetingKey: 'u1' })).toMatchObject({ variant: 'green', reason: 'default' });
  });

  test('answers reason error with PARSE_ERROR and no value when targeting does not compile', () => {
    const result = evaluate([imported({ targeting: { broken: true } })], { pick: 'blue' });
    expect(result).toMatchObject({
      value: null,
      variant: null,
      reason: 'error',
      errorCode: 'PARSE_ERROR',
      errorMessage: 'targeting at /broken: does not compile',
    });
  });
});

describe('compiled environments', () => {
  const flags = [flag('b-flag'), flag('A-flag'), flag('archived', {}, { archived: true }), flag('a-flag')];
  const compiled = compileEnvironment({ environmentKey: ENV, flags, segments: [] });

  test('lists flag keys in code-unit order, archived flags included', () => {
    expect(compiled.flagKeys).toEqual(['A-flag', 'a-flag', 'archived', 'b-flag']);
  });

  test('answers undefined for a flag it does not have', () => {
    expect(compiled.evaluate('missing', {}, NOW)).toBeUndefined();
  });

  test('still evaluates an archived flag asked for by key', () => {
    expect(compiled.evaluate('archived', {}, NOW)?.reason).toBe('static');
  });

  test('evaluates every non-archived flag in key order', () => {
    expect(compiled.evaluateAll({}, NOW).map((r) => r.key)).toEqual(['A-flag', 'a-flag', 'b-flag']);
  });

  test('evaluates only the listed flags that exist, once each, in key order', () => {
    expect(
      compiled.evaluateAll({}, NOW, ['b-flag', 'missing', 'archived', 'b-flag', 'A-flag']).map((r) => r.key),
    ).toEqual(['A-flag', 'archived', 'b-flag']);
  });

  test('gives the same results in bulk as one by one, with segments shared between flags', () => {
    const segments = [segment('nl', [dutch]), segment('nl-pro', [{ type: 'segment', segment: 'nl' }, pro])];
    const many = Array.from({ length: 50 }, (_, i) =>
      stringFlag(`f${i}`, {
        rules: [{ id: 'r', segments: [i % 2 ? 'nl' : 'nl-pro'], conditions: [], serve: { variant: 'blue' } }],
      }),
    );
    const env = compileEnvironment({ environmentKey: ENV, flags: many, segments });
    for (const context of [
      { country: 'NL', plan: 'pro' },
      { country: 'NL' },
      { country: 'BE', plan: 'pro' },
    ]) {
      const bulk = env.evaluateAll(context, NOW);
      expect(bulk).toEqual(bulk.map((r) => env.evaluate(r.key, context, NOW)));
    }
  });

  test('adds a flag in a new snapshot, leaving the old one unchanged', () => {
    const next = withFlag(compiled, flag('c-flag', { enabled: false }));
    expect(next.flagKeys).toEqual(['A-flag', 'a-flag', 'archived', 'b-flag', 'c-flag']);
    expect(next.evaluate('c-flag', {}, NOW)?.reason).toBe('disabled');
    expect(compiled.evaluate('c-flag', {}, NOW)).toBeUndefined();
    expect(withFlag(compiled, flag('0-first')).flagKeys[0]).toBe('0-first');
  });

  test('replaces a flag in a new snapshot, leaving the old one unchanged', () => {
    const next = withFlag(compiled, flag('a-flag', { enabled: false }));
    expect(next.evaluate('a-flag', {}, NOW)?.reason).toBe('disabled');
    expect(compiled.evaluate('a-flag', {}, NOW)?.reason).toBe('static');
    expect(next.flagKeys).toEqual(compiled.flagKeys);
  });

  test('archiving a flag by replacing it removes it from bulk evaluation', () => {
    const next = withFlag(compiled, flag('a-flag', {}, { archived: true }));
    expect(next.evaluateAll({}, NOW).map((r) => r.key)).toEqual(['A-flag', 'b-flag']);
  });

  test('removes a flag in a new snapshot, leaving the old one unchanged', () => {
    const next = withoutFlag(compiled, 'a-flag');
    expect(next.evaluate('a-flag', {}, NOW)).toBeUndefined();
    expect(next.flagKeys).toEqual(['A-flag', 'archived', 'b-flag']);
    expect(compiled.evaluate('a-flag', {}, NOW)).toBeDefined();
    expect(withoutFlag(compiled, 'missing')).toBe(compiled);
  });

  test('refuses to patch something that compileEnvironment did not make', () => {
    const fake = { environmentKey: ENV, flagKeys: [], evaluate: () => undefined, evaluateAll: () => [] };
    expect(() => withFlag(fake, flag('x'))).toThrow(TypeError);
  });
});

// How long building and patching take is measured by `npm run bench` (bench/scale.ts), not here.
describe('a large environment', () => {
  test('compiles 10,000 flags and 1,000 segments, and patches one flag of them', () => {
    const segments = Array.from({ length: 1000 }, (_, i) =>
      segment(`s${i}`, [
        { type: 'attribute', attribute: 'plan', operator: 'in', values: ['pro', 'team', `p${i}`] },
        { type: 'attribute', attribute: 'email', operator: 'matches', value: `@(example|corp${i})\\.com$` },
        ...(i > 0 ? [{ type: 'segment' as const, segment: `s${i - 1}`, negate: true }] : []),
      ]),
    );
    const flags = Array.from({ length: 10_000 }, (_, i) =>
      stringFlag(`flag-${i}`, {
        targets: [{ variant: 'blue', values: [`user-${i}`, `user-${i + 1}`] }],
        rules: [
          {
            id: `r${i}`,
            segments: [`s${i % 1000}`],
            conditions: [
              { type: 'attribute', attribute: 'version', operator: 'semver_gte', value: `1.${i % 20}.0` },
              { type: 'attribute', attribute: 'signup', operator: 'after', value: '2024-01-01T00:00:00Z' },
            ],
            serve: { variant: 'red' },
          },
        ],
        defaultRollout: {
          weights: [
            { variant: 'green', weight: 50 },
            { variant: 'blue', weight: 50 },
          ],
        },
      }),
    );
    const compiled = compileEnvironment({ environmentKey: ENV, flags, segments });
    const patched = withFlag(compiled, stringFlag('flag-5000', { enabled: false }));
    expect(compiled.flagKeys).toHaveLength(10_000);
    expect(patched.evaluate('flag-5000', {}, NOW)?.reason).toBe('disabled');
    expect(compiled.evaluate('flag-5000', {}, NOW)?.reason).not.toBe('disabled');
  });
});
