import { describe, expect, test } from 'vitest';
import type { EvaluationContext } from '../domain/evaluation-result.ts';
import { type AttributeRule, OPERATORS, type Operator, type Rule } from '../domain/segment.ts';
import { compileAttributeRule, validateAttributeRule, validateRule } from './operators.ts';

type Operand = string | number | boolean | readonly (string | number | boolean)[];

function isList(operand: Operand): operand is readonly (string | number | boolean)[] {
  return Array.isArray(operand);
}

function rule(attribute: string, operator: Operator, operand?: Operand, negate?: boolean): AttributeRule {
  const base: AttributeRule = { type: 'attribute', attribute, operator };
  const withOperand: AttributeRule =
    operand === undefined
      ? base
      : isList(operand)
        ? { ...base, values: operand }
        : { ...base, value: operand };
  return negate === undefined ? withOperand : { ...withOperand, negate };
}

type Case = readonly [string, AttributeRule, EvaluationContext, boolean];

const cases: Record<string, readonly Case[]> = {
  equals: [
    ['matches an equal string', rule('country', 'equals', 'NL'), { country: 'NL' }, true],
    ['refuses a different string', rule('country', 'equals', 'NL'), { country: 'DE' }, false],
    ['compares case-sensitively', rule('country', 'equals', 'NL'), { country: 'nl' }, false],
    ['compares a number attribute by its JSON text', rule('age', 'equals', '30'), { age: 30 }, true],
    ['compares a number value by its JSON text', rule('age', 'equals', 30), { age: '30' }, true],
    ['compares a fractional number by its JSON text', rule('ratio', 'equals', '1.5'), { ratio: 1.5 }, true],
    ['does not equate 30 with "30.0"', rule('age', 'equals', '30.0'), { age: 30 }, false],
    ['compares a boolean attribute by its JSON text', rule('beta', 'equals', 'true'), { beta: true }, true],
    ['refuses false against "true"', rule('beta', 'equals', true), { beta: false }, false],
    ['matches an empty string only against an empty string', rule('name', 'equals', ''), { name: '' }, true],
    ['never matches a missing attribute', rule('country', 'equals', 'NL'), {}, false],
    ['treats a null attribute as missing', rule('country', 'equals', 'null'), { country: null }, false],
    ['inverts to true for a missing attribute when negated', rule('country', 'equals', 'NL', true), {}, true],
    ['inverts a match when negated', rule('country', 'equals', 'NL', true), { country: 'NL' }, false],
    [
      'never matches an object attribute',
      rule('country', 'equals', '[object Object]'),
      { country: {} },
      false,
    ],
    [
      'matches a list attribute when one element is equal',
      rule('groups', 'equals', 'beta'),
      { groups: ['staff', 'beta'] },
      true,
    ],
    [
      'refuses a list attribute when no element is equal',
      rule('groups', 'equals', 'beta'),
      { groups: ['staff'] },
      false,
    ],
    ['does not read inherited properties', rule('constructor', 'exists'), {}, false],
  ],
  not_equals: [
    ['matches a different string', rule('country', 'not_equals', 'NL'), { country: 'DE' }, true],
    ['refuses an equal string', rule('country', 'not_equals', 'NL'), { country: 'NL' }, false],
    ['compares numbers by their JSON text', rule('age', 'not_equals', '30'), { age: 30 }, false],
    ['never matches a missing attribute', rule('country', 'not_equals', 'NL'), {}, false],
    ['matches a missing attribute when negated', rule('country', 'not_equals', 'NL', true), {}, true],
    [
      'refuses a list attribute that holds the value',
      rule('groups', 'not_equals', 'a'),
      { groups: ['a', 'b'] },
      false,
    ],
    [
      'matches a list attribute that lacks the value',
      rule('groups', 'not_equals', 'a'),
      { groups: ['b'] },
      true,
    ],
  ],
  in: [
    ['matches a listed string', rule('country', 'in', ['NL', 'BE']), { country: 'BE' }, true],
    ['refuses an unlisted string', rule('country', 'in', ['NL', 'BE']), { country: 'DE' }, false],
    ['matches a number attribute against listed text', rule('tier', 'in', ['1', '2']), { tier: 2 }, true],
    ['matches a string attribute against listed numbers', rule('tier', 'in', [1, 2]), { tier: '2' }, true],
    ['matches a boolean against listed booleans', rule('beta', 'in', [true]), { beta: true }, true],
    ['never matches an empty list', rule('country', 'in', []), { country: 'NL' }, false],
    ['never matches a missing attribute', rule('country', 'in', ['NL']), {}, false],
    ['matches a missing attribute when negated', rule('country', 'in', ['NL'], true), {}, true],
    [
      'matches a list attribute with one listed element',
      rule('groups', 'in', ['beta']),
      { groups: ['x', 'beta'] },
      true,
    ],
  ],
  not_in: [
    ['matches an unlisted string', rule('country', 'not_in', ['NL']), { country: 'DE' }, true],
    ['refuses a listed string', rule('country', 'not_in', ['NL']), { country: 'NL' }, false],
    ['never matches a missing attribute', rule('country', 'not_in', ['NL']), {}, false],
    ['matches a missing attribute when negated', rule('country', 'not_in', ['NL'], true), {}, true],
    [
      'refuses when negated and the string is unlisted',
      rule('country', 'not_in', ['NL'], true),
      { country: 'DE' },
      false,
    ],
  ],
  contains: [
    ['matches a substring', rule('email', 'contains', '@example.'), { email: 'ann@example.com' }, true],
    ['refuses a string without it', rule('email', 'contains', '@example.'), { email: 'ann@test.org' }, false],
    ['searches the JSON text of a number', rule('id', 'contains', '234'), { id: 12345 }, true],
    ['never matches a missing attribute', rule('email', 'contains', 'a'), {}, false],
    ['matches a missing attribute when negated', rule('email', 'contains', 'a', true), {}, true],
  ],
  not_contains: [
    [
      'matches a string without the substring',
      rule('email', 'not_contains', 'test'),
      { email: 'a@b.com' },
      true,
    ],
    [
      'refuses a string with the substring',
      rule('email', 'not_contains', 'test'),
      { email: 'test@b.com' },
      false,
    ],
    ['never matches a missing attribute', rule('email', 'not_contains', 'test'), {}, false],
  ],
  starts_with: [
    ['matches a prefix', rule('email', 'starts_with', 'ann'), { email: 'ann@example.com' }, true],
    [
      'refuses a string without the prefix',
      rule('email', 'starts_with', 'bob'),
      { email: 'ann@example.com' },
      false,
    ],
    ['reads a number by its JSON text', rule('zip', 'starts_with', '10'), { zip: 1011 }, true],
    ['never matches a missing attribute', rule('email', 'starts_with', 'a'), {}, false],
  ],
  ends_with: [
    ['matches a suffix', rule('email', 'ends_with', '@example.com'), { email: 'ann@example.com' }, true],
    [
      'refuses a string without the suffix',
      rule('email', 'ends_with', '.org'),
      { email: 'ann@example.com' },
      false,
    ],
    ['never matches a missing attribute', rule('email', 'ends_with', 'm'), {}, false],
    ['matches a missing attribute when negated', rule('email', 'ends_with', 'm', true), {}, true],
  ],
  matches: [
    ['matches an anchored pattern', rule('id', 'matches', '^user-\\d+$'), { id: 'user-42' }, true],
    [
      'refuses a string the pattern does not match',
      rule('id', 'matches', '^user-\\d+$'),
      { id: 'user-x' },
      false,
    ],
    [
      'searches anywhere in the string when unanchored',
      rule('email', 'matches', 'example'),
      { email: 'a@example.com' },
      true,
    ],
    ['honours inline flags', rule('country', 'matches', '(?i)^nl$'), { country: 'NL' }, true],
    ['reads a number by its JSON text', rule('age', 'matches', '^3\\d$'), { age: 34 }, true],
    ['never matches a missing attribute', rule('id', 'matches', '.*'), {}, false],
    ['matches a missing attribute when negated', rule('id', 'matches', '.*', true), {}, true],
  ],
  exists: [
    ['matches a present attribute', rule('plan', 'exists'), { plan: 'pro' }, true],
    ['matches an empty string', rule('plan', 'exists'), { plan: '' }, true],
    ['matches false', rule('beta', 'exists'), { beta: false }, true],
    ['refuses a missing attribute', rule('plan', 'exists'), {}, false],
    ['refuses a null attribute', rule('plan', 'exists'), { plan: null }, false],
    ['matches a missing attribute when negated', rule('plan', 'exists', undefined, true), {}, true],
  ],
  not_exists: [
    ['matches a missing attribute', rule('plan', 'not_exists'), {}, true],
    ['matches a null attribute', rule('plan', 'not_exists'), { plan: null }, true],
    ['refuses a present attribute', rule('plan', 'not_exists'), { plan: 'pro' }, false],
    [
      'matches a present attribute when negated',
      rule('plan', 'not_exists', undefined, true),
      { plan: 'pro' },
      true,
    ],
  ],
  gt: [
    ['matches a greater number', rule('age', 'gt', 18), { age: 30 }, true],
    ['refuses an equal number', rule('age', 'gt', 18), { age: 18 }, false],
    ['reads a decimal string as a number', rule('age', 'gt', 18), { age: '30' }, true],
    ['compares numerically, not as text', rule('age', 'gt', 9), { age: '10' }, true],
    ['refuses a string that is not a decimal number', rule('age', 'gt', 18), { age: '30 years' }, false],
    ['refuses a hexadecimal string', rule('age', 'gt', 18), { age: '0x20' }, false],
    ['refuses a boolean', rule('age', 'gt', 0), { age: true }, false],
    ['never matches a missing attribute', rule('age', 'gt', 18), {}, false],
    ['matches a missing attribute when negated', rule('age', 'gt', 18, true), {}, true],
    ['handles negative fractions', rule('delta', 'gt', -1.5), { delta: -1.25 }, true],
  ],
  gte: [
    ['matches an equal number', rule('age', 'gte', 18), { age: 18 }, true],
    ['refuses a smaller number', rule('age', 'gte', 18), { age: 17 }, false],
    ['never matches a missing attribute', rule('age', 'gte', 18), {}, false],
  ],
  lt: [
    ['matches a smaller number', rule('age', 'lt', 18), { age: 17 }, true],
    ['refuses an equal number', rule('age', 'lt', 18), { age: 18 }, false],
    ['never matches a missing attribute', rule('age', 'lt', 18), {}, false],
    ['refuses a non-numeric string', rule('age', 'lt', 18), { age: 'young' }, false],
  ],
  lte: [
    ['matches an equal number', rule('age', 'lte', 18), { age: 18 }, true],
    ['refuses a greater number', rule('age', 'lte', 18), { age: 19 }, false],
    ['never matches a missing attribute', rule('age', 'lte', 18), {}, false],
  ],
  semver_eq: [
    ['matches an equal version', rule('v', 'semver_eq', '1.2.3'), { v: '1.2.3' }, true],
    ['ignores a v prefix, as flagd does', rule('v', 'semver_eq', '1.2.3'), { v: 'v1.2.3' }, true],
    ['reads a partial version as flagd does', rule('v', 'semver_eq', '1.2.0'), { v: '1.2' }, true],
    ['ignores build metadata', rule('v', 'semver_eq', '1.0.0'), { v: '1.0.0+build.7' }, true],
    ['accepts a v prefix in the rule', rule('v', 'semver_eq', 'v1.0.0'), { v: '1.0.0' }, true],
    [
      'accepts a V prefix and a partial version in the rule',
      rule('v', 'semver_eq', 'V1'),
      { v: '1.0.0' },
      true,
    ],
    ['accepts a number as the rule version', rule('v', 'semver_eq', 1.2), { v: '1.2.0' }, true],
    ['refuses a different version', rule('v', 'semver_eq', '1.2.3'), { v: '1.2.4' }, false],
    ['refuses a string that is not a version', rule('v', 'semver_eq', '1.2.3'), { v: 'latest' }, false],
    ['never matches a missing attribute', rule('v', 'semver_eq', '1.2.3'), {}, false],
    ['matches a missing attribute when negated', rule('v', 'semver_eq', '1.2.3', true), {}, true],
  ],
  semver_gt: [
    ['orders versions numerically, not as text', rule('v', 'semver_gt', '1.9.0'), { v: '1.10.0' }, true],
    ['refuses an equal version', rule('v', 'semver_gt', '1.9.0'), { v: '1.9.0' }, false],
    ['orders a release above its pre-release', rule('v', 'semver_gt', '2.0.0-rc.1'), { v: '2.0.0' }, true],
    ['reads a number attribute as a partial version', rule('v', 'semver_gt', '1.5.0'), { v: 2 }, true],
    [
      'refuses a string that is not a version',
      rule('v', 'semver_gt', '1.0.0'),
      { v: 'not-a-version' },
      false,
    ],
    [
      'matches a non-version when negated',
      rule('v', 'semver_gt', '1.0.0', true),
      { v: 'not-a-version' },
      true,
    ],
  ],
  semver_gte: [
    ['matches an equal version', rule('v', 'semver_gte', '1.2.3'), { v: '1.2.3' }, true],
    ['refuses a lower version', rule('v', 'semver_gte', '1.2.3'), { v: '1.2.2' }, false],
    ['refuses a string that is not a version', rule('v', 'semver_gte', '1.2.3'), { v: '1.2.3.4' }, false],
  ],
  semver_lt: [
    ['orders a pre-release below its release', rule('v', 'semver_lt', '2.0.0'), { v: '2.0.0-beta.1' }, true],
    ['refuses an equal version', rule('v', 'semver_lt', '2.0.0'), { v: '2.0.0' }, false],
    ['refuses a string that is not a version', rule('v', 'semver_lt', '2.0.0'), { v: 'old' }, false],
  ],
  semver_lte: [
    ['matches an equal version', rule('v', 'semver_lte', '2.0.0'), { v: '2.0.0' }, true],
    ['refuses a higher version', rule('v', 'semver_lte', '2.0.0'), { v: '2.0.1' }, false],
    ['never matches a missing attribute', rule('v', 'semver_lte', '2.0.0'), {}, false],
  ],
  before: [
    [
      'matches an earlier date-time',
      rule('signup', 'before', '2025-01-01T00:00:00Z'),
      { signup: '2024-06-30T12:00:00Z' },
      true,
    ],
    [
      'refuses the same instant',
      rule('signup', 'before', '2025-01-01T00:00:00Z'),
      { signup: '2025-01-01T00:00:00Z' },
      false,
    ],
    [
      'applies time zone offsets',
      rule('signup', 'before', '2025-01-01T00:00:00Z'),
      { signup: '2025-01-01T01:00:00+02:00' },
      true,
    ],
    ['reads epoch seconds', rule('signup', 'before', '2025-01-01T00:00:00Z'), { signup: 1700000000 }, true],
    [
      'reads a full-date as midnight UTC',
      rule('signup', 'before', '2025-01-01T00:00:01Z'),
      { signup: '2025-01-01' },
      true,
    ],
    [
      'compares fractions of a second',
      rule('t', 'before', '2025-01-01T00:00:00.5Z'),
      { t: '2025-01-01T00:00:00.25Z' },
      true,
    ],
    [
      'accepts epoch seconds as the operand',
      rule('signup', 'before', 1735689600),
      { signup: '2024-12-31T23:59:59Z' },
      true,
    ],
    [
      'refuses a string that is not a date',
      rule('signup', 'before', '2025-01-01T00:00:00Z'),
      { signup: 'yesterday' },
      false,
    ],
    [
      'refuses an impossible date',
      rule('signup', 'before', '2025-01-01T00:00:00Z'),
      { signup: '2024-02-30T00:00:00Z' },
      false,
    ],
    ['never matches a missing attribute', rule('signup', 'before', '2025-01-01T00:00:00Z'), {}, false],
    [
      'matches a missing attribute when negated',
      rule('signup', 'before', '2025-01-01T00:00:00Z', true),
      {},
      true,
    ],
  ],
  after: [
    [
      'matches a later date-time',
      rule('signup', 'after', '2025-01-01T00:00:00Z'),
      { signup: '2025-01-01T00:00:01Z' },
      true,
    ],
    [
      'refuses the same instant written with another offset',
      rule('signup', 'after', '2025-01-01T00:00:00Z'),
      { signup: '2025-01-01T02:00:00+02:00' },
      false,
    ],
    [
      'reads epoch seconds given as a decimal string',
      rule('signup', 'after', 0),
      { signup: '1700000000.5' },
      true,
    ],
    [
      'handles years before 100',
      rule('t', 'after', '0050-01-01T00:00:00Z'),
      { t: '1950-01-01T00:00:00Z' },
      true,
    ],
    ['never matches a missing attribute', rule('signup', 'after', 0), {}, false],
  ],
};

describe('attribute rules', () => {
  for (const [operator, table] of Object.entries(cases)) {
    describe(operator, () => {
      test.each(table)('%s', (_name, attributeRule, context, expected) => {
        expect(validateAttributeRule(attributeRule)).toEqual([]);
        expect(compileAttributeRule(attributeRule)(context)).toBe(expected);
      });
    });
  }

  test('covers every operator of docs/product.md', () => {
    expect(Object.keys(cases).sort()).toEqual([...OPERATORS].sort());
  });

  describe('dotted attribute names', () => {
    test.each<Case>([
      ['reach into nested objects', rule('user.plan', 'equals', 'pro'), { user: { plan: 'pro' } }, true],
      ['reach several levels deep', rule('a.b.c', 'equals', '1'), { a: { b: { c: 1 } } }, true],
      [
        'prefer an attribute that has the dotted name itself',
        rule('user.plan', 'equals', 'pro'),
        { 'user.plan': 'pro', user: { plan: 'free' } },
        true,
      ],
      ['are missing when a level is missing', rule('user.plan', 'exists'), { user: {} }, false],
      ['are missing when a level is not an object', rule('user.plan', 'exists'), { user: 'ann' }, false],
      ['do not walk into arrays', rule('users.0', 'exists'), { users: ['ann'] }, false],
      ['do not reach inherited properties', rule('user.constructor', 'exists'), { user: {} }, false],
    ])('%s', (_name, attributeRule, context, expected) => {
      expect(compileAttributeRule(attributeRule)(context)).toBe(expected);
    });
  });

  test('evaluates a catastrophic-backtracking pattern in linear time', () => {
    const predicate = compileAttributeRule(rule('input', 'matches', '^(a+)+$'));
    const started = performance.now();
    expect(predicate({ input: `${'a'.repeat(50_000)}!` })).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('validating rules', () => {
  const invalid: readonly [string, Rule, string, RegExp][] = [
    [
      'refuses an unknown operator',
      { type: 'attribute', attribute: 'a', operator: 'like' as Operator, value: 'x' },
      '/operator',
      /unknown operator/,
    ],
    [
      'refuses a rule without an attribute',
      { type: 'attribute', attribute: '', operator: 'equals', value: 'x' },
      '/attribute',
      /attribute/,
    ],
    ['refuses in without values', rule('a', 'in'), '/values', /needs values/],
    ['refuses not_in without values', rule('a', 'not_in'), '/values', /needs values/],
    ['refuses in with value instead of values', rule('a', 'in', 'x'), '/value', /not value/],
    [
      'refuses in with a non-scalar element',
      { ...rule('a', 'in', ['x']), values: ['x', {} as string] },
      '/values/1',
      /string, number or boolean/,
    ],
    ['refuses equals without a value', rule('a', 'equals'), '/value', /needs a value/],
    ['refuses equals with values', rule('a', 'equals', ['x']), '/values', /not values/],
    [
      'refuses equals with an object value',
      { ...rule('a', 'equals'), value: {} as string },
      '/value',
      /string, number or boolean/,
    ],
    [
      'refuses a regex that does not compile',
      rule('a', 'matches', '(unclosed'),
      '/value',
      /does not compile/,
    ],
    [
      'refuses a regex with a backreference, which RE2 cannot run in linear time',
      rule('a', 'matches', '(a)\\1'),
      '/value',
      /does not compile/,
    ],
    ['refuses a regex with lookahead', rule('a', 'matches', 'x(?=y)'), '/value', /does not compile/],
    ['refuses a semver that does not parse', rule('v', 'semver_gt', 'banana'), '/value', /semantic version/],
    ['refuses a four-part version', rule('v', 'semver_eq', '1.2.3.4'), '/value', /semantic version/],
    ['refuses a date that does not parse', rule('d', 'before', 'next tuesday'), '/value', /RFC 3339/],
    ['refuses an impossible date', rule('d', 'after', '2023-02-29T00:00:00Z'), '/value', /RFC 3339/],
    ['refuses gt with a string', rule('age', 'gt', '18'), '/value', /must be a number/],
    ['refuses lte with a boolean', rule('age', 'lte', true), '/value', /must be a number/],
    ['refuses exists with a value', rule('a', 'exists', 'x'), '', /takes neither/],
    [
      'refuses a negate that is not a boolean',
      { ...rule('a', 'exists'), negate: 'yes' as unknown as boolean },
      '/negate',
      /boolean/,
    ],
  ];

  test.each(invalid)('%s', (_name, invalidRule, path, message) => {
    const errors = validateRule(invalidRule, '/rules/3');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe(`/rules/3${path}`);
    expect(errors[0]?.message).toMatch(message);
  });

  // Extra fields (a value on exists, a non-boolean negate) leave the rule usable; the rest cannot match.
  test.each(invalid.filter(([, r, path]) => r.type === 'attribute' && path !== '' && path !== '/negate'))(
    'compiles a rule it %s into one that never matches, without throwing',
    (_name, invalidRule) => {
      const predicate = compileAttributeRule(invalidRule as AttributeRule);
      expect(predicate({ a: 'x', age: 30, v: '1.0.0', d: '2024-01-01T00:00:00Z' })).toBe(false);
      expect(predicate({})).toBe(false);
    },
  );

  test('gives attribute rule errors relative to the rule', () => {
    expect(validateAttributeRule(rule('a', 'in'))).toEqual([
      { path: '/values', message: 'in needs values: a list' },
    ]);
  });

  test.each<[string, Rule, number]>([
    ['accepts a segment rule', { type: 'segment', segment: 'beta-users' }, 0],
    ['refuses a segment rule without a segment', { type: 'segment', segment: '' }, 1],
    ['refuses a rule of unknown type', { type: 'cohort' } as unknown as Rule, 1],
  ])('%s', (_name, someRule, count) => {
    expect(validateRule(someRule)).toHaveLength(count);
  });
});

describe('attribute paths read own properties only (no prototype reads)', () => {
  const PATHS = ['constructor.name', '__proto__.x', 'a.constructor', 'toString', 'a.b.hasOwnProperty'];
  const contexts: EvaluationContext[] = [{ targetingKey: 'u' }, { targetingKey: 'u', a: { b: {} } }];
  test.each(PATHS)('%s never matches', (path) => {
    for (const context of contexts) {
      expect(compileAttributeRule(rule(path, 'exists'))(context)).toBe(false);
      expect(compileAttributeRule(rule(path, 'equals', 'Object'))(context)).toBe(false);
      expect(compileAttributeRule(rule(path, 'contains', 'function'))(context)).toBe(false);
      expect(compileAttributeRule(rule(path, 'not_exists'))(context)).toBe(true);
    }
  });
});
