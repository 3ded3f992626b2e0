import { describe, expect, test } from 'vitest';
import type { EvaluationContext } from '../domain/evaluation-result.ts';
import { type AttributeRule, OPERATORS, type Operator, type Rule } from '../domain/segment.ts';
import { compileAttributeRule, validateAttributeRule, validateRule } from './operators.ts';

type Operand = string | number | boolean | readonly (string | number | boolean)[];

function isList(operand: Operand): operand is readonly (string | number | boolean)[] {
  return Array.isArray(operand);
}

function ruleOn(attribute: string, operator: Operator, operand?: Operand, negate?: boolean): AttributeRule {
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

/** A rule of one operator: its cases below name only the attribute, the operand and negate. */
type RuleOfOperator = (attribute: string, operand?: Operand, negate?: boolean) => AttributeRule;

/** The instant most date cases compare with. */
const NEW_YEAR = '2025-01-01T00:00:00Z';

/**
 * What every operator with an operand owes a missing attribute (absent or null): it never
 * matches, and a negated rule therefore does.
 */
const missingAttribute = (rule: RuleOfOperator, operand: Operand): Case[] => [
  ['never matches a missing attribute', rule('missing', operand), {}, false],
  ['matches a missing attribute when negated', rule('missing', operand, true), {}, true],
];

/** Each operator's cases, written with `rule`, a rule of that operator. */
const cases: { readonly [O in Operator]: (rule: RuleOfOperator) => readonly Case[] } = {
  equals: (rule) => [
    ['matches an equal string', rule('country', 'NL'), { country: 'NL' }, true],
    ['refuses a different string', rule('country', 'NL'), { country: 'DE' }, false],
    ['compares case-sensitively', rule('country', 'NL'), { country: 'nl' }, false],
    ['compares a number attribute by its JSON text', rule('age', '30'), { age: 30 }, true],
    ['compares a number value by its JSON text', rule('age', 30), { age: '30' }, true],
    ['compares a fractional number by its JSON text', rule('ratio', '1.5'), { ratio: 1.5 }, true],
    ['does not equate 30 with "30.0"', rule('age', '30.0'), { age: 30 }, false],
    ['compares a boolean attribute by its JSON text', rule('beta', 'true'), { beta: true }, true],
    ['refuses false against "true"', rule('beta', true), { beta: false }, false],
    ['matches an empty string only against an empty string', rule('name', ''), { name: '' }, true],
    ['treats a null attribute as missing', rule('country', 'null'), { country: null }, false],
    ['inverts a match when negated', rule('country', 'NL', true), { country: 'NL' }, false],
    ['never matches an object attribute', rule('country', '[object Object]'), { country: {} }, false],
    ['matches a list with an equal element', rule('groups', 'beta'), { groups: ['staff', 'beta'] }, true],
    ['refuses a list with no equal element', rule('groups', 'beta'), { groups: ['staff'] }, false],
    ...missingAttribute(rule, 'NL'),
  ],
  not_equals: (rule) => [
    ['matches a different string', rule('country', 'NL'), { country: 'DE' }, true],
    ['refuses an equal string', rule('country', 'NL'), { country: 'NL' }, false],
    ['compares numbers by their JSON text', rule('age', '30'), { age: 30 }, false],
    ['refuses a list attribute that holds the value', rule('groups', 'a'), { groups: ['a', 'b'] }, false],
    ['matches a list attribute that lacks the value', rule('groups', 'a'), { groups: ['b'] }, true],
    ...missingAttribute(rule, 'NL'),
  ],
  in: (rule) => [
    ['matches a listed string', rule('country', ['NL', 'BE']), { country: 'BE' }, true],
    ['refuses an unlisted string', rule('country', ['NL', 'BE']), { country: 'DE' }, false],
    ['matches a number attribute against listed text', rule('tier', ['1', '2']), { tier: 2 }, true],
    ['matches a string attribute against listed numbers', rule('tier', [1, 2]), { tier: '2' }, true],
    ['matches a boolean against listed booleans', rule('beta', [true]), { beta: true }, true],
    ['never matches an empty list', rule('country', []), { country: 'NL' }, false],
    ['matches a list with a listed element', rule('groups', ['beta']), { groups: ['x', 'beta'] }, true],
    ...missingAttribute(rule, ['NL']),
  ],
  not_in: (rule) => [
    ['matches an unlisted string', rule('country', ['NL']), { country: 'DE' }, true],
    ['refuses a listed string', rule('country', ['NL']), { country: 'NL' }, false],
    ['refuses an unlisted string when negated', rule('country', ['NL'], true), { country: 'DE' }, false],
    ...missingAttribute(rule, ['NL']),
  ],
  contains: (rule) => [
    ['matches a substring', rule('email', '@example.'), { email: 'ann@example.com' }, true],
    ['refuses a string without it', rule('email', '@example.'), { email: 'ann@test.org' }, false],
    ['searches the JSON text of a number', rule('id', '234'), { id: 12345 }, true],
    ...missingAttribute(rule, 'a'),
  ],
  not_contains: (rule) => [
    ['matches a string without the substring', rule('email', 'test'), { email: 'a@b.com' }, true],
    ['refuses a string with the substring', rule('email', 'test'), { email: 'test@b.com' }, false],
    ...missingAttribute(rule, 'test'),
  ],
  starts_with: (rule) => [
    ['matches a prefix', rule('email', 'ann'), { email: 'ann@example.com' }, true],
    ['refuses a string without the prefix', rule('email', 'bob'), { email: 'ann@example.com' }, false],
    ['reads a number by its JSON text', rule('zip', '10'), { zip: 1011 }, true],
    ...missingAttribute(rule, 'a'),
  ],
  ends_with: (rule) => [
    ['matches a suffix', rule('email', '@example.com'), { email: 'ann@example.com' }, true],
    ['refuses a string without the suffix', rule('email', '.org'), { email: 'ann@example.com' }, false],
    ...missingAttribute(rule, 'm'),
  ],
  matches: (rule) => [
    ['matches an anchored pattern', rule('id', '^user-\\d+$'), { id: 'user-42' }, true],
    ['refuses a string the pattern does not match', rule('id', '^user-\\d+$'), { id: 'user-x' }, false],
    ['searches the whole string when unanchored', rule('email', 'example'), { email: 'a@example.com' }, true],
    ['honours inline flags', rule('country', '(?i)^nl$'), { country: 'NL' }, true],
    ['reads a number by its JSON text', rule('age', '^3\\d$'), { age: 34 }, true],
    ...missingAttribute(rule, '.*'),
  ],
  exists: (rule) => [
    ['matches a present attribute', rule('plan'), { plan: 'pro' }, true],
    ['matches an empty string', rule('plan'), { plan: '' }, true],
    ['matches false', rule('beta'), { beta: false }, true],
    ['refuses a missing attribute', rule('plan'), {}, false],
    ['refuses a null attribute', rule('plan'), { plan: null }, false],
    ['matches a missing attribute when negated', rule('plan', undefined, true), {}, true],
    ['does not read inherited properties', rule('constructor'), {}, false],
  ],
  not_exists: (rule) => [
    ['matches a missing attribute', rule('plan'), {}, true],
    ['matches a null attribute', rule('plan'), { plan: null }, true],
    ['refuses a present attribute', rule('plan'), { plan: 'pro' }, false],
    ['matches a present attribute when negated', rule('plan', undefined, true), { plan: 'pro' }, true],
  ],
  gt: (rule) => [
    ['matches a greater number', rule('age', 18), { age: 30 }, true],
    ['refuses an equal number', rule('age', 18), { age: 18 }, false],
    ['reads a decimal string as a number', rule('age', 18), { age: '30' }, true],
    ['compares numerically, not as text', rule('age', 9), { age: '10' }, true],
    ['refuses a string that is not a decimal number', rule('age', 18), { age: '30 years' }, false],
    ['refuses a hexadecimal string', rule('age', 18), { age: '0x20' }, false],
    ['refuses a boolean', rule('age', 0), { age: true }, false],
    ['handles negative fractions', rule('delta', -1.5), { delta: -1.25 }, true],
    ...missingAttribute(rule, 18),
  ],
  gte: (rule) => [
    ['matches an equal number', rule('age', 18), { age: 18 }, true],
    ['refuses a smaller number', rule('age', 18), { age: 17 }, false],
    ...missingAttribute(rule, 18),
  ],
  lt: (rule) => [
    ['matches a smaller number', rule('age', 18), { age: 17 }, true],
    ['refuses an equal number', rule('age', 18), { age: 18 }, false],
    ['refuses a non-numeric string', rule('age', 18), { age: 'young' }, false],
    ...missingAttribute(rule, 18),
  ],
  lte: (rule) => [
    ['matches an equal number', rule('age', 18), { age: 18 }, true],
    ['refuses a greater number', rule('age', 18), { age: 19 }, false],
    ...missingAttribute(rule, 18),
  ],
  semver_eq: (rule) => [
    ['matches an equal version', rule('v', '1.2.3'), { v: '1.2.3' }, true],
    ['ignores a v prefix, as flagd does', rule('v', '1.2.3'), { v: 'v1.2.3' }, true],
    ['reads a partial version as flagd does', rule('v', '1.2.0'), { v: '1.2' }, true],
    ['ignores build metadata', rule('v', '1.0.0'), { v: '1.0.0+build.7' }, true],
    ['accepts a v prefix in the rule', rule('v', 'v1.0.0'), { v: '1.0.0' }, true],
    ['accepts a V prefix and a partial version in the rule', rule('v', 'V1'), { v: '1.0.0' }, true],
    ['accepts a number as the rule version', rule('v', 1.2), { v: '1.2.0' }, true],
    ['refuses a different version', rule('v', '1.2.3'), { v: '1.2.4' }, false],
    ['refuses a string that is not a version', rule('v', '1.2.3'), { v: 'latest' }, false],
    ...missingAttribute(rule, '1.2.3'),
  ],
  semver_gt: (rule) => [
    ['orders versions numerically, not as text', rule('v', '1.9.0'), { v: '1.10.0' }, true],
    ['refuses an equal version', rule('v', '1.9.0'), { v: '1.9.0' }, false],
    ['orders a release above its pre-release', rule('v', '2.0.0-rc.1'), { v: '2.0.0' }, true],
    ['reads a number attribute as a partial version', rule('v', '1.5.0'), { v: 2 }, true],
    ['refuses a string that is not a version', rule('v', '1.0.0'), { v: 'not-a-version' }, false],
    ['matches a non-version when negated', rule('v', '1.0.0', true), { v: 'not-a-version' }, true],
    ...missingAttribute(rule, '1.0.0'),
  ],
  semver_gte: (rule) => [
    ['matches an equal version', rule('v', '1.2.3'), { v: '1.2.3' }, true],
    ['refuses a lower version', rule('v', '1.2.3'), { v: '1.2.2' }, false],
    ['refuses a string that is not a version', rule('v', '1.2.3'), { v: '1.2.3.4' }, false],
    ...missingAttribute(rule, '1.2.3'),
  ],
  semver_lt: (rule) => [
    ['orders a pre-release below its release', rule('v', '2.0.0'), { v: '2.0.0-beta.1' }, true],
    ['refuses an equal version', rule('v', '2.0.0'), { v: '2.0.0' }, false],
    ['refuses a string that is not a version', rule('v', '2.0.0'), { v: 'old' }, false],
    ...missingAttribute(rule, '2.0.0'),
  ],
  semver_lte: (rule) => [
    ['matches an equal version', rule('v', '2.0.0'), { v: '2.0.0' }, true],
    ['refuses a higher version', rule('v', '2.0.0'), { v: '2.0.1' }, false],
    ...missingAttribute(rule, '2.0.0'),
  ],
  before: (rule) => [
    ['matches an earlier date-time', rule('signup', NEW_YEAR), { signup: '2024-06-30T12:00:00Z' }, true],
    ['refuses the same instant', rule('signup', NEW_YEAR), { signup: NEW_YEAR }, false],
    ['applies time zone offsets', rule('signup', NEW_YEAR), { signup: '2025-01-01T01:00:00+02:00' }, true],
    ['reads epoch seconds', rule('signup', NEW_YEAR), { signup: 1700000000 }, true],
    ['reads a full-date as midnight UTC', rule('day', '2025-01-01T00:00:01Z'), { day: '2025-01-01' }, true],
    ['compares milliseconds', rule('t', '2025-01-01T00:00:00.5Z'), { t: '2025-01-01T00:00:00.25Z' }, true],
    ['reads epoch seconds in the rule', rule('signup', 1735689600), { signup: '2024-12-31T23:59:59Z' }, true],
    ['refuses a string that is not a date', rule('signup', NEW_YEAR), { signup: 'yesterday' }, false],
    ['refuses an impossible date', rule('signup', NEW_YEAR), { signup: '2024-02-30T00:00:00Z' }, false],
    ...missingAttribute(rule, NEW_YEAR),
  ],
  after: (rule) => [
    ['matches a later date-time', rule('signup', NEW_YEAR), { signup: '2025-01-01T00:00:01Z' }, true],
    ['refuses the same instant at +02:00', rule('t', NEW_YEAR), { t: '2025-01-01T02:00:00+02:00' }, false],
    ['reads epoch seconds given as a decimal string', rule('signup', 0), { signup: '1700000000.5' }, true],
    ['handles years before 100', rule('t', '0050-01-01T00:00:00Z'), { t: '1950-01-01T00:00:00Z' }, true],
    ...missingAttribute(rule, 0),
  ],
};

describe('attribute rules', () => {
  for (const operator of Object.keys(cases) as Operator[]) {
    describe(operator, () => {
      const table = cases[operator]((attribute, operand, negate) =>
        ruleOn(attribute, operator, operand, negate),
      );
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
      ['reach into nested objects', ruleOn('user.plan', 'equals', 'pro'), { user: { plan: 'pro' } }, true],
      ['reach several levels deep', ruleOn('a.b.c', 'equals', '1'), { a: { b: { c: 1 } } }, true],
      [
        'prefer an attribute that has the dotted name itself',
        ruleOn('user.plan', 'equals', 'pro'),
        { 'user.plan': 'pro', user: { plan: 'free' } },
        true,
      ],
      ['are missing when a level is missing', ruleOn('user.plan', 'exists'), { user: {} }, false],
      ['are missing when a level is not an object', ruleOn('user.plan', 'exists'), { user: 'ann' }, false],
      ['do not walk into arrays', ruleOn('users.0', 'exists'), { users: ['ann'] }, false],
      ['do not reach inherited properties', ruleOn('user.constructor', 'exists'), { user: {} }, false],
    ])('%s', (_name, attributeRule, context, expected) => {
      expect(compileAttributeRule(attributeRule)(context)).toBe(expected);
    });
  });

  test('evaluates a catastrophic-backtracking pattern in linear time', () => {
    const predicate = compileAttributeRule(ruleOn('input', 'matches', '^(a+)+$'));
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
    ['refuses in without values', ruleOn('a', 'in'), '/values', /needs values/],
    ['refuses not_in without values', ruleOn('a', 'not_in'), '/values', /needs values/],
    ['refuses in with value instead of values', ruleOn('a', 'in', 'x'), '/value', /not value/],
    [
      'refuses in with a non-scalar element',
      { ...ruleOn('a', 'in', ['x']), values: ['x', {} as string] },
      '/values/1',
      /string, number or boolean/,
    ],
    ['refuses equals without a value', ruleOn('a', 'equals'), '/value', /needs a value/],
    ['refuses equals with values', ruleOn('a', 'equals', ['x']), '/values', /not values/],
    [
      'refuses equals with an object value',
      { ...ruleOn('a', 'equals'), value: {} as string },
      '/value',
      /string, number or boolean/,
    ],
    [
      'refuses a regex that does not compile',
      ruleOn('a', 'matches', '(unclosed'),
      '/value',
      /does not compile/,
    ],
    [
      'refuses a regex with a backreference, which RE2 cannot run in linear time',
      ruleOn('a', 'matches', '(a)\\1'),
      '/value',
      /does not compile/,
    ],
    ['refuses a regex with lookahead', ruleOn('a', 'matches', 'x(?=y)'), '/value', /does not compile/],
    [
      'refuses a semver that does not parse',
      ruleOn('v', 'semver_gt', 'banana'),
      '/value',
      /semantic version/,
    ],
    ['refuses a four-part version', ruleOn('v', 'semver_eq', '1.2.3.4'), '/value', /semantic version/],
    ['refuses a date that does not parse', ruleOn('d', 'before', 'next tuesday'), '/value', /RFC 3339/],
    ['refuses an impossible date', ruleOn('d', 'after', '2023-02-29T00:00:00Z'), '/value', /RFC 3339/],
    ['refuses gt with a string', ruleOn('age', 'gt', '18'), '/value', /must be a number/],
    ['refuses lte with a boolean', ruleOn('age', 'lte', true), '/value', /must be a number/],
    ['refuses exists with a value', ruleOn('a', 'exists', 'x'), '', /takes neither/],
    [
      'refuses a negate that is not a boolean',
      { ...ruleOn('a', 'exists'), negate: 'yes' as unknown as boolean },
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
    expect(validateAttributeRule(ruleOn('a', 'in'))).toEqual([
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
      expect(compileAttributeRule(ruleOn(path, 'exists'))(context)).toBe(false);
      expect(compileAttributeRule(ruleOn(path, 'equals', 'Object'))(context)).toBe(false);
      expect(compileAttributeRule(ruleOn(path, 'contains', 'function'))(context)).toBe(false);
      expect(compileAttributeRule(ruleOn(path, 'not_exists'))(context)).toBe(true);
    }
  });
});
