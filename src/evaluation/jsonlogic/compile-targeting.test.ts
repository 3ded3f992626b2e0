import { FlagdCore } from '@openfeature/flagd-core';
import { describe, expect, it } from 'vitest';
import { pinClockDuringSuite } from '../../../test/support/pinned-clock.ts';
import type { JsonValue } from '../../domain/flag.ts';
import { compileTargeting, tryCompileTargeting, validateTargeting } from './compile-targeting.ts';

const NOW = 1_750_000_000;
const FLAG = 'my-flag';

type Row = readonly [
  name: string,
  logic: JsonValue,
  context: Record<string, unknown>,
  expected: string | null,
];

/** flagd-core's pick for the same row: each expectation below is also held to flagd itself. */
function flagdPick(logic: JsonValue, context: Record<string, unknown>, flagKey = FLAG): string | null {
  const core = new FlagdCore(undefined, { debug() {}, info() {}, warn() {}, error() {} } as never);
  core.setConfigurations(
    JSON.stringify({
      flags: {
        [flagKey]: { state: 'ENABLED', variants: { __d: 0 }, defaultVariant: '__d', targeting: logic },
      },
    }),
  );
  const result = core.getFlag(flagKey)?.evaluate(context as never) as {
    reason: string;
    variant?: string;
    errorMessage?: string;
  };
  if (result.reason === 'TARGETING_MATCH') return result.variant ?? null;
  return /^Variant '([\s\S]*)' not found/.exec(result.errorMessage ?? '')?.[1] ?? null;
}

const TABLES: Record<string, readonly Row[]> = {
  var: [
    ['reads an attribute', { var: 'color' }, { color: 'red' }, 'red'],
    ['reads an attribute given as a list', { var: ['color'] }, { color: 'red' }, 'red'],
    ['reads a dotted path', { var: 'user.plan' }, { user: { plan: 'pro' } }, 'pro'],
    ['reads list elements by index', { var: 'tags.1' }, { tags: ['a', 'b'] }, 'b'],
    ['escapes a dot with a backslash', { var: 'a\\.b' }, { 'a.b': 'x', a: { b: 'y' } }, 'x'],
    ['gives the default when missing', { var: ['color', 'blue'] }, {}, 'blue'],
    ['gives the default when null', { var: ['color', 'blue'] }, { color: null }, 'blue'],
    ['gives null (no variant) when missing', { var: 'color' }, {}, null],
    ['reads $flagd.flagKey', { var: '$flagd.flagKey' }, {}, FLAG],
    ['reads $flagd.timestamp', { var: '$flagd.timestamp' }, {}, String(NOW)],
    [
      'does not let the context override $flagd',
      { var: '$flagd.flagKey' },
      { $flagd: { flagKey: 'x' } },
      FLAG,
    ],
    ['reads targetingKey', { var: 'targetingKey' }, { targetingKey: 'user-1' }, 'user-1'],
  ],
  missing: [
    ['lists missing keys', { if: [{ missing: ['a', 'b'] }, 'some', 'none'] }, { a: 1 }, 'some'],
    [
      'is empty when all are there',
      { if: [{ missing: ['a', 'b'] }, 'some', 'none'] },
      { a: 1, b: 2 },
      'none',
    ],
    [
      'follows dotted paths',
      { cat: { missing: ['user.plan', 'user.id'] } },
      { user: { id: 1 } },
      'user.plan',
    ],
    [
      'missing_some: enough present',
      { if: [{ missing_some: [1, ['a', 'b']] }, 'short', 'ok'] },
      { b: 1 },
      'ok',
    ],
    [
      'missing_some: too few present',
      { if: [{ missing_some: [2, ['a', 'b', 'c']] }, 'short', 'ok'] },
      { b: 1 },
      'short',
    ],
  ],
  if: [
    ['takes the then branch', { if: [true, 'yes', 'no'] }, {}, 'yes'],
    ['chains else-ifs', { if: [false, 'a', { var: 'x' }, 'b', 'c'] }, { x: 1 }, 'b'],
    ['falls to the last else', { if: [false, 'a', false, 'b', 'c'] }, {}, 'c'],
    ['with two arguments gives null when false', { if: [{ var: 'x' }, 'yes'] }, {}, null],
    ['with two arguments gives the branch when true', { if: [{ var: 'x' }, 'yes'] }, { x: 'y' }, 'yes'],
    ['?: is if', { '?:': [{ var: 'x' }, 'yes', 'no'] }, { x: 0 }, 'no'],
    ['treats empty lists as false', { if: [{ var: 'tags' }, 'yes', 'no'] }, { tags: [] }, 'no'],
    ['treats empty objects as false', { if: [{ var: 'o' }, 'yes', 'no'] }, { o: {} }, 'no'],
    ['treats "0" as true', { if: [{ var: 'x' }, 'yes', 'no'] }, { x: '0' }, 'yes'],
  ],
  equality: [
    ['== coerces numbers', { '==': [{ var: 'age' }, '18'] }, { age: 18 }, 'true'],
    ['== compares strings as strings', { '==': [{ var: 'color' }, 'yellow'] }, { color: 'yellow' }, 'true'],
    ['== of a missing value and null', { '==': [{ var: 'x' }, null] }, {}, 'true'],
    ['== of 0 and null', { '==': [{ var: 'x' }, null] }, { x: 0 }, 'true'],
    ['=== does not coerce', { '===': [{ var: 'age' }, '18'] }, { age: 18 }, 'false'],
    ['!= coerces', { '!=': [{ var: 'age' }, 18] }, { age: '18' }, 'false'],
    ['!== does not coerce', { '!==': [{ var: 'age' }, 18] }, { age: '18' }, 'true'],
    ['== of a number and a word fails (no variant)', { '==': [{ var: 'age' }, 'old'] }, { age: 18 }, null],
    [
      '== of two attributes checks the second against itself, as flagd does',
      { '==': [{ var: 'a' }, { var: 'b' }] },
      { a: 'x', b: 1 },
      'false',
    ],
  ],
  negation: [
    ['! of a value', { '!': { var: 'x' } }, { x: 0 }, 'true'],
    ['! of a list takes its first element', { '!': [{ var: 'x' }] }, { x: 'a' }, 'false'],
    ['!! casts to boolean', { '!!': [{ var: 'tags' }] }, { tags: ['a'] }, 'true'],
    ['!! of an empty list', { '!!': [{ var: 'tags' }] }, { tags: [] }, 'false'],
  ],
  logic: [
    ['or returns the first truthy value', { or: [{ var: 'a' }, { var: 'b' }, 'c'] }, { b: 'bee' }, 'bee'],
    ['or returns the last value when none is truthy', { or: [{ var: 'a' }, 0] }, {}, '0'],
    ['and returns the first falsy value', { and: [true, { var: 'a' }, 'c'] }, { a: '' }, ''],
    ['and returns the last value when all are truthy', { and: [true, 'b'] }, {}, 'b'],
  ],
  comparison: [
    ['< on numbers', { '<': [{ var: 'age' }, 18] }, { age: 17 }, 'true'],
    ['<= on numbers', { '<=': [{ var: 'age' }, 18] }, { age: 18 }, 'true'],
    ['> on numeric text', { '>': [{ var: 'age' }, 18] }, { age: '20' }, 'true'],
    ['>= on strings compares text', { '>=': [{ var: 'color' }, 'b'] }, { color: 'c' }, 'true'],
    ['< between (three arguments)', { '<': [0, { var: 'age' }, 18] }, { age: 5 }, 'true'],
    ['<= between at the edges', { '<=': [0, { var: 'age' }, 18] }, { age: 18 }, 'true'],
    ['< between outside', { '<': [0, { var: 'age' }, 18] }, { age: 18 }, 'false'],
    ['< on a word fails', { '<': [{ var: 'age' }, 18] }, { age: 'old' }, null],
    [
      '> with the timestamp',
      { '>': [{ var: '$flagd.timestamp' }, { var: 'time' }] },
      { time: NOW - 1 },
      'true',
    ],
  ],
  arithmetic: [
    ['+ adds', { '+': [{ var: 'a' }, 2] }, { a: 1 }, '3'],
    ['+ coerces numeric text', { '+': [{ var: 'a' }, '2'] }, { a: '1' }, '3'],
    ['+ of a word fails', { '+': [{ var: 'a' }, 2] }, { a: 'x' }, null],
    ['- subtracts', { '-': [{ var: 'a' }, 2] }, { a: 10 }, '8'],
    ['- negates', { '-': [{ var: 'a' }] }, { a: 4 }, '-4'],
    ['* multiplies', { '*': [{ var: 'a' }, 3, 2] }, { a: 2 }, '12'],
    ['/ divides', { '/': [{ var: 'a' }, 4] }, { a: 10 }, '2.5'],
    ['/ by zero fails', { '/': [10, { var: 'a' }] }, { a: 0 }, null],
    ['% takes the remainder', { '%': [{ var: 'a' }, 3] }, { a: 10 }, '1'],
    ['min of numbers', { min: [{ var: 'a' }, 3] }, { a: 1 }, '1'],
    ['max of numbers', { max: [{ var: 'a' }, 3] }, { a: 1 }, '3'],
    ['max refuses text', { max: [{ var: 'a' }, 3] }, { a: '5' }, null],
  ],
  strings: [
    ['cat concatenates', { cat: ['v-', { var: 'n' }] }, { n: 2 }, 'v-2'],
    ['cat writes null as "null", as flagd compiles it', { cat: ['a', { var: 'x' }] }, {}, 'anull'],
    ['substr from a position', { substr: [{ var: 's' }, 2] }, { s: 'abcdef' }, 'cdef'],
    ['substr with a length', { substr: [{ var: 's' }, 1, 2] }, { s: 'abcdef' }, 'bc'],
    ['substr from the end', { substr: [{ var: 's' }, -2] }, { s: 'abcdef' }, 'ef'],
    ['substr with a negative length', { substr: [{ var: 's' }, 1, -2] }, { s: 'abcdef' }, 'bcd'],
    ['in finds a substring', { in: ['@faas.com', { var: 'email' }] }, { email: 'ann@faas.com' }, 'true'],
    ['in finds a list member', { in: [{ var: 'color' }, ['red', 'blue']] }, { color: 'blue' }, 'true'],
    ['in compares list members strictly', { in: [{ var: 'n' }, ['1', '2']] }, { n: 1 }, 'false'],
    ['in of a missing container is false', { in: ['a', { var: 'x' }] }, {}, 'false'],
    ['starts_with', { starts_with: [{ var: 'id' }, 'abc'] }, { id: 'abc123' }, 'true'],
    ['ends_with', { ends_with: [{ var: 'id' }, 'xyz'] }, { id: '123xyz' }, 'true'],
    [
      'starts_with needs text',
      { if: [{ starts_with: [{ var: 'id' }, '1'] }, 'yes', 'no'] },
      { id: 123 },
      'no',
    ],
  ],
  lists: [
    ['merge flattens one level', { cat: { merge: [[1, 2], 3, [[4]]] } }, {}, '1234'],
    ['map', { cat: { map: [{ var: 'tags' }, { cat: [{ var: '' }, '!'] }] } }, { tags: ['a', 'b'] }, 'a!b!'],
    ['filter', { cat: { filter: [{ var: 'n' }, { '>': [{ var: '' }, 1] }] } }, { n: [1, 2, 3] }, '23'],
    [
      'reduce',
      { reduce: [{ var: 'n' }, { '+': [{ var: 'accumulator' }, { var: 'current' }] }, 0] },
      { n: [1, 2, 3] },
      '6',
    ],
    ['all', { all: [{ var: 'n' }, { '>': [{ var: '' }, 0] }] }, { n: [1, 2] }, 'true'],
    ['all of an empty list is false', { all: [{ var: 'n' }, { '>': [{ var: '' }, 0] }] }, { n: [] }, 'false'],
    ['some', { some: [{ var: 'tags' }, { '==': [{ var: '' }, 'beta'] }] }, { tags: ['a', 'beta'] }, 'true'],
    ['none', { none: [{ var: 'tags' }, { '==': [{ var: '' }, 'beta'] }] }, { tags: ['a'] }, 'true'],
    [
      'flagd operators fail inside callbacks, as in flagd',
      { some: [{ var: 'tags' }, { starts_with: [{ var: '' }, 'b'] }] },
      { tags: ['beta'] },
      null,
    ],
  ],
  sem_ver: [
    ['=', { sem_ver: [{ var: 'v' }, '=', '1.2.3'] }, { v: '1.2.3' }, 'true'],
    ['!=', { sem_ver: [{ var: 'v' }, '!=', '1.2.3'] }, { v: '1.2.4' }, 'true'],
    ['<', { sem_ver: [{ var: 'v' }, '<', '1.2.3'] }, { v: '1.2.3-beta.1' }, 'true'],
    ['<=', { sem_ver: [{ var: 'v' }, '<=', '1.2.3'] }, { v: '1.2.3' }, 'true'],
    ['>', { sem_ver: [{ var: 'v' }, '>', '1.2.3'] }, { v: '1.10.0' }, 'true'],
    ['>=', { sem_ver: [{ var: 'v' }, '>=', '2.0.0'] }, { v: '1.99.99' }, 'false'],
    ['^ (same major)', { sem_ver: [{ var: 'v' }, '^', '3.0.0'] }, { v: '3.9.1' }, 'true'],
    ['~ (same minor)', { sem_ver: [{ var: 'v' }, '~', '3.0.0'] }, { v: '3.1.0' }, 'false'],
    ['a v prefix', { sem_ver: [{ var: 'v' }, '=', '2.0.0'] }, { v: 'v2.0.0' }, 'true'],
    ['a partial version', { sem_ver: [{ var: 'v' }, '=', '2.1.0'] }, { v: '2.1' }, 'true'],
    ['a number as a version', { sem_ver: [{ var: 'v' }, '=', '2.0.0'] }, { v: 2 }, 'true'],
    ['build metadata is ignored', { sem_ver: [{ var: 'v' }, '=', '2.0.0'] }, { v: '2.0.0+build.7' }, 'true'],
    [
      'an invalid version is no answer',
      { if: [{ sem_ver: [{ var: 'v' }, '=', '2.0.0'] }, 'yes', 'no'] },
      { v: '2.0.0.0' },
      'no',
    ],
    [
      'an unknown operator is no answer',
      { if: [{ sem_ver: [{ var: 'v' }, '===', '2.0.0'] }, 'yes', 'no'] },
      { v: '2.0.0' },
      'no',
    ],
    [
      'a v prefix written in the targeting',
      { sem_ver: [{ var: 'v' }, '=', 'v1.0.0'] },
      { v: '1.0.0' },
      'true',
    ],
    ['a V prefix in the context', { sem_ver: [{ var: 'v' }, '=', '1.0.0'] }, { v: 'V1.0.0' }, 'true'],
    ['a major-only version written', { sem_ver: [{ var: 'v' }, '^', '1'] }, { v: '1.5.0' }, 'true'],
    ['a number written as the version', { sem_ver: [{ var: 'v' }, '>=', 1.2] }, { v: '1.2.0' }, 'true'],
    ['a number in the context', { sem_ver: [{ var: 'v' }, '<', '1.3.0'] }, { v: 1.2 }, 'true'],
    [
      'an unknown operator yields null: the default',
      { sem_ver: [{ var: 'v' }, '===', '1.0.0'] },
      { v: '1.0.0' },
      null,
    ],
    ['two arguments yield null: the default', { sem_ver: [{ var: 'v' }, '='] }, { v: '1.0.0' }, null],
    [
      'four arguments yield null: the default',
      { sem_ver: [{ var: 'v' }, '=', '1.0.0', 'x'] },
      { v: '1.0.0' },
      null,
    ],
  ],
  starts_with_ends_with: [
    ['starts_with', { starts_with: [{ var: 'id' }, 'abc'] }, { id: 'abcdef' }, 'true'],
    ['ends_with', { ends_with: [{ var: 'id' }, 'xyz'] }, { id: 'abcdef' }, 'false'],
    ['starts_with with one argument yields null', { starts_with: ['abc'] }, {}, null],
    ['ends_with with three arguments yields null', { ends_with: ['abc', 'c', 'x'] }, {}, null],
    ['starts_with on a number yields null', { starts_with: [{ var: 'n' }, '1'] }, { n: 123 }, null],
  ],
  fractional: [
    [
      'counts a negative weight as 0',
      {
        fractional: [{ var: 'k' }, ['one', -50], ['two', 100]],
      },
      { k: 'anyone' },
      'two',
    ],
    [
      'buckets flagKey + targetingKey by default',
      {
        fractional: [
          ['a', 50],
          ['b', 50],
        ],
      },
      { targetingKey: 'user-1' },
      'a',
    ],
    [
      'without a targetingKey gives no variant',
      {
        fractional: [
          ['a', 50],
          ['b', 50],
        ],
      },
      {},
      null,
    ],
    [
      'buckets an explicit key',
      { fractional: [{ var: 'email' }, ['a', 50], ['b', 50]] },
      { email: 'ann@faas.com' },
      'a',
    ],
    [
      'a weight alone means 1',
      { fractional: [{ var: 'email' }, ['a'], ['b']] },
      { email: 'ann@faas.com' },
      'a',
    ],
    [
      'a zero weight is never picked',
      { fractional: [{ var: 'email' }, ['a', 0], ['b', 1]] },
      { email: 'x' },
      'b',
    ],
    [
      'negative weights count as zero',
      { fractional: [{ var: 'email' }, ['a', -5], ['b', 1]] },
      { email: 'x' },
      'b',
    ],
    [
      'fractional weights refuse to split',
      { fractional: [{ var: 'email' }, ['a', 0.5], ['b', 1]] },
      { email: 'x' },
      null,
    ],
    [
      'weights may be expressions',
      { fractional: [{ var: 'email' }, ['a', { var: 'w' }], ['b', 0]] },
      { email: 'x', w: 1 },
      'a',
    ],
    [
      'variants may be expressions',
      { fractional: [{ var: 'email' }, [{ var: 'v' }, 1]] },
      { email: 'x', v: 'red' },
      'red',
    ],
    [
      'a missing bucket key falls back to no split',
      { fractional: [{ var: 'email' }, ['a', 1]] },
      { targetingKey: 'k' },
      null,
    ],
    [
      'nested in if',
      {
        if: [
          { var: 'beta' },
          {
            fractional: [
              ['a', 1],
              ['b', 1],
            ],
          },
          'c',
        ],
      },
      { beta: true, targetingKey: 'k' },
      'b',
    ],
    [
      'total past Int32 gives no variant',
      {
        fractional: [
          ['a', 2147483647],
          ['b', 1],
        ],
      },
      { targetingKey: 'k' },
      null,
    ],
  ],
  results: [
    ['a boolean result is the variant "true"/"false"', { '==': [1, { var: 'one' }] }, { one: 1 }, 'true'],
    ['a number result is its text', { '+': [{ var: 'a' }, 0.5] }, { a: 1 }, '1.5'],
    ['null is no variant', { if: [false, 'a', null] }, {}, null],
    ['an unknown operator gives no variant', { nope: [1] }, {}, null],
    [
      'a constant expression that fails gives no variant',
      { if: [{ var: 'x' }, 'a', { '/': [1, 0] }] },
      { x: true },
      null,
    ],
  ],
};

describe('compileTargeting', () => {
  pinClockDuringSuite(NOW);

  for (const [operator, rows] of Object.entries(TABLES)) {
    describe(operator, () => {
      it.each(rows)('%s', (_name, logic, context, expected) => {
        expect(compileTargeting(logic)(context, FLAG, NOW)).toBe(expected);
        expect(flagdPick(logic, context)).toBe(expected);
      });
    });
  }

  it('treats absent targeting ({}, false, 0) as no variant, as flagd ignores it', () => {
    for (const logic of [{}, false, 0, null, '']) expect(compileTargeting(logic)({}, FLAG, NOW)).toBeNull();
  });

  it('never throws, whatever the context', () => {
    const targeting = compileTargeting({ '+': [{ var: 'a' }, { var: 'b.c' }] });
    for (const context of [{}, { a: {} }, { a: [1] }, { b: null }, { a: 'x', b: { c: Symbol.iterator } }]) {
      expect(() => targeting(context, FLAG, NOW)).not.toThrow();
    }
  });

  it('uses whole seconds for $flagd.timestamp', () => {
    expect(compileTargeting({ var: '$flagd.timestamp' })({}, FLAG, NOW + 0.9)).toBe(String(NOW));
  });
});

describe('variable paths read own properties only (no prototype reads)', () => {
  // flagd's engine reads inherited properties here ("constructor.name" is "Object"); Flagstaff does not.
  const PATHS = [
    'constructor.name',
    '__proto__.x',
    'a.constructor',
    'toString',
    'constructor',
    'a.__proto__',
  ];
  const CONTEXTS = [{ targetingKey: 'u' }, { targetingKey: 'u', a: { b: 1 }, list: [{}] }];
  it.each(PATHS)('%s never matches', (path) => {
    const tests: JsonValue[] = [
      { if: [{ '!!': [{ var: path }] }, 'on', null] },
      { if: [{ '!!': { var: path } }, 'on', null] },
      { if: [{ '!!': [{ var: [path, null] }] }, 'on', null] },
      { if: [{ missing: [path] }, null, 'on'] },
      { if: [{ missing_some: [1, [path]] }, null, 'on'] },
      { if: [{ some: [{ var: 'list' }, { var: path }] }, 'on', null] },
      { if: [{ '!!': { var: { cat: [path] } } }, 'on', null] },
    ];
    for (const logic of tests) {
      for (const context of CONTEXTS) {
        expect(compileTargeting(logic)(context, FLAG, NOW), JSON.stringify(logic)).toBeNull();
      }
    }
  });

  it('still reads the length and elements of strings and lists, which are their own', () => {
    expect(compileTargeting({ var: 'name.length' })({ name: 'abc' }, FLAG, NOW)).toBe('3');
    expect(compileTargeting({ var: 'tags.1' })({ tags: ['a', 'b'] }, FLAG, NOW)).toBe('b');
  });
});

describe('tryCompileTargeting', () => {
  it('says why targeting cannot be compiled: flagd answers PARSE_ERROR for it', () => {
    expect(tryCompileTargeting({ if: [{ $ref: 'missing' }, 'a', 'b'] })).toEqual({
      ok: false,
      error: {
        path: '/if/0',
        message: 'unknown operator "$ref" (a $ref to an evaluator that does not exist: "missing")',
      },
    });
    expect(tryCompileTargeting({ '/': [1, 0] })).toMatchObject({ ok: false });
  });

  it('refuses targeting nested deeper than 64 levels without overflowing the stack', () => {
    let deep: JsonValue = { var: 'x' };
    for (let i = 0; i < 10_000; i++) deep = { '!': [deep] };
    expect(tryCompileTargeting(deep)).toEqual({
      ok: false,
      error: { path: '', message: 'targeting nests deeper than 64 levels' },
    });
    expect(validateTargeting(deep)).toEqual([{ path: '', message: 'targeting nests deeper than 64 levels' }]);
  });
});

describe('flags with the same targeting (decision 2090: compiled once, shared)', () => {
  // Without a bucketing expression flagd buckets by the flag's key and the targeting key.
  const split = (): JsonValue => ({
    fractional: [
      ['on', 50],
      ['off', 50],
    ],
  });

  it('still buckets each flag by its own key, as flagd does', () => {
    const [a, b] = [compileTargeting(split()), compileTargeting(split())] as const;
    const users = Array.from({ length: 40 }, (_, i) => ({ targetingKey: `user-${i}` }));
    const picks = (targeting: typeof a, flagKey: string) => users.map((u) => targeting(u, flagKey, NOW));
    expect(picks(a, 'checkout')).toEqual(users.map((u) => flagdPick(split(), u, 'checkout')));
    expect(picks(b, 'search')).toEqual(users.map((u) => flagdPick(split(), u, 'search')));
    expect(picks(a, 'checkout')).not.toEqual(picks(b, 'search'));
  });

  it('names the path of an expression that cannot be compiled wherever it sits, the same text elsewhere too', () => {
    const broken = { map: [{ var: 'xs' }] };
    expect(tryCompileTargeting({ or: [broken] })).toMatchObject({ error: { path: '/or/0/map' } });
    expect(tryCompileTargeting({ if: [{ var: 'a' }, broken, 'x'] })).toMatchObject({
      error: { path: '/if/1/map' },
    });
  });

  it('compiles the same text inside and outside an iterator as flagd does in each place', () => {
    const index: JsonValue = { var: '../index' };
    const context = { xs: ['a', 'b'], '../index': 'q' };
    for (const logic of [{ cat: [{ map: [{ var: 'xs' }, index] }] }, { cat: [index] }]) {
      expect(compileTargeting(logic)(context, FLAG, NOW)).toBe(flagdPick(logic, context));
    }
    expect(compileTargeting({ cat: [{ map: [{ var: 'xs' }, index] }] })(context, FLAG, NOW)).toBe('0,1');
  });
});

describe('validateTargeting', () => {
  it.each([
    ['accepts valid targeting', { if: [{ sem_ver: [{ var: 'v' }, '>=', '1.0.0'] }, 'on', null] }, []],
    ['accepts empty targeting', {}, []],
    [
      'refuses an unknown operator',
      { if: [{ regex: ['a'] }, 'on', null] },
      [{ path: '/if/0', message: 'unknown operator "regex"' }],
    ],
    [
      'refuses an unresolved $ref',
      { if: [{ $ref: 'rule' }, 'on', null] },
      [
        {
          path: '/if/0',
          message: 'unknown operator "$ref" (a $ref to an evaluator that does not exist: "rule")',
        },
      ],
    ],
    [
      'refuses an object with two operators',
      { and: [true], or: [false] },
      [{ path: '', message: 'an expression must have exactly one operator, found 2: and, or' }],
    ],
    [
      'refuses a constant that fails',
      { '+': ['a', 1] },
      [{ path: '', message: 'this constant expression fails: NaN' }],
    ],
    [
      'refuses division by a literal zero',
      { '/': [{ var: 'a' }, 0] },
      [{ path: '/~1', message: 'division by zero' }],
    ],
    [
      'refuses an unknown sem_ver operator',
      { sem_ver: [{ var: 'v' }, '=>', '1.0.0'] },
      [{ path: '/sem_ver/1', message: 'unknown sem_ver operator "=>"; use one of = != < <= > >= ^ ~' }],
    ],
    [
      'refuses a fractional weight that is not a whole number',
      { fractional: [{ var: 'k' }, ['a', 1.5], ['b', 1]] },
      [
        {
          path: '/fractional/1',
          message: 'a fractional entry is [variant] or [variant, weight] with a whole, non-negative weight',
        },
      ],
    ],
    [
      'refuses starts_with with one argument',
      { starts_with: [{ var: 'k' }] },
      [{ path: '/starts_with', message: '"starts_with" takes exactly two arguments' }],
    ],
  ] as const)('%s', (_name, logic, errors) => {
    expect(validateTargeting(logic as JsonValue)).toEqual(errors);
  });
});
