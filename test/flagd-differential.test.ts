import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FlagdCore } from '@openfeature/flagd-core';
import { describe, expect, it } from 'vitest';
import { tryCompileWithEngine } from '../bench/spike/json-logic-engine-targeting.ts';
import type { JsonValue } from '../src/domain/flag.ts';
import { compileTargeting as ourCompiler } from '../src/evaluation/jsonlogic/compile-targeting.ts';
import { OPERATORS as ENGINE_OPERATORS } from '../src/evaluation/jsonlogic/operators.ts';
import { flagdReferenceContexts } from './support/flagd-reference-contexts.ts';
import { pinClockDuringSuite } from './support/pinned-clock.ts';
import { chance, pick, type Random, seededRandom } from './support/random.ts';

// FLAGSTAFF_JSONLOGIC_SPIKE=1 runs this suite on json-logic-engine instead (decision 0103's spike).
const compileTargeting = process.env.FLAGSTAFF_JSONLOGIC_SPIKE
  ? (logic: JsonValue) => {
      const compiled = tryCompileWithEngine(logic);
      return compiled.ok ? compiled.evaluate : () => null;
    }
  : ourCompiler;

// flagd-core reads the clock for $flagd.timestamp: it is pinned to NOW so that both sides see one time.
const NOW = 1_750_000_000;
const REFERENCE = join(import.meta.dirname, 'fixtures/flagd-schema');
const DEFAULT = '__default__';
const SILENT = { debug() {}, info() {}, warn() {}, error() {} };

const WORDS = [
  'red',
  'blue',
  'green',
  'yellow',
  'on',
  'off',
  'a',
  'b',
  '',
  'abc',
  'xyz',
  '10',
  '3.5',
  'true',
  'null',
];
const EMAILS = ['ann@faas.com', 'bob@example.com', 'eve@company.com', 'x@faas.com.evil', 'no-at-sign'];
const VERSIONS = [
  '1.0.0',
  '2.0.0',
  'v2.0.0',
  'V1.2.3',
  '1.2',
  '2',
  '2.1.0-beta.1',
  '3.0.0+build.5',
  '2.0.0.0',
  'bad',
  '10.20.30',
];
const PATHS = [
  'targetingKey',
  'email',
  'color',
  'age',
  'version',
  'tags',
  'user.plan',
  'user.id',
  'flag',
  'time',
  'missing',
  'nil',
  'count',
  '$flagd.flagKey',
  '$flagd.timestamp',
];
const VARIANTS = ['red', 'blue', 'green', 'yellow', 'on', 'off', 'true', 'false', '1', '2'];

/** A context: the attributes targeting reads, with the types and gaps real contexts have. */
function randomContext(random: Random): Record<string, unknown> {
  const context: Record<string, unknown> = {};
  if (chance(random, 0.9))
    context.targetingKey = chance(random, 0.9)
      ? `user-${Math.floor(random() * 100000)}`
      : pick(random, ['', 7]);
  if (chance(random, 0.7)) context.email = pick(random, EMAILS);
  if (chance(random, 0.7)) context.color = pick(random, WORDS);
  if (chance(random, 0.7))
    context.age = pick(random, [0, 17, 18, 21, 42, 65.5, -3, '18', '42', 'old', '', null, true]);
  if (chance(random, 0.7)) context.version = pick(random, [...VERSIONS, 2, 1.5]);
  if (chance(random, 0.5))
    context.tags = pick(random, [[], ['a'], ['a', 'b'], ['beta', 'red'], [1, 2, 3], 'a,b']);
  if (chance(random, 0.6)) {
    context.user = chance(random, 0.8)
      ? { plan: pick(random, ['free', 'pro', 'team', 0, null]), id: Math.floor(random() * 50) }
      : pick(random, ['pro', null, 0]);
  }
  if (chance(random, 0.5)) context.flag = pick(random, [true, false, 0, 1, 'yes']);
  if (chance(random, 0.6))
    context.time = pick(random, [NOW - 86_400, NOW - 1, NOW, NOW + 1, NOW + 86_400, `${NOW}soon`]);
  if (chance(random, 0.3)) context.nil = null;
  if (chance(random, 0.5)) context.count = pick(random, [0, 1, 2, 5, 10, '5', 'x']);
  return context;
}

type Gen = (random: Random, depth: number) => JsonValue;

const variable = (random: Random, _depth = 0): JsonValue => {
  const path = pick(random, PATHS);
  if (chance(random, 0.2)) return { var: [path, pick(random, [0, 'fallback', null, false, 5])] };
  return chance(random, 0.5) ? { var: path } : { var: [path] };
};

const literal: Gen = (random) =>
  pick(random, [
    pick(random, WORDS),
    Math.floor(random() * 50) - 5,
    0,
    1,
    18,
    2.5,
    true,
    false,
    null,
    NOW,
    NOW - 10,
  ]);

const operand = (random: Random, depth: number): JsonValue => {
  const r = random();
  if (r < 0.5) return variable(random, depth);
  if (r < 0.8 || depth <= 0) return literal(random, depth);
  return value(random, depth - 1);
};

const comparison = (random: Random, depth: number): JsonValue => {
  const op = pick(random, ['==', '===', '!=', '!==', '<', '<=', '>', '>=']);
  const args = [operand(random, depth), operand(random, depth)];
  if ((op === '<' || op === '<=') && chance(random, 0.2)) args.push(operand(random, depth));
  return { [op]: args };
};

const condition = (random: Random, depth: number): JsonValue => {
  const r = random();
  if (depth <= 0 || r < 0.25) return comparison(random, depth);
  if (r < 0.35)
    return {
      [pick(random, ['and', 'or'])]: [
        condition(random, depth - 1),
        condition(random, depth - 1),
        ...(chance(random, 0.3) ? [condition(random, depth - 1)] : []),
      ],
    };
  if (r < 0.42)
    return {
      [pick(random, ['!', '!!'])]: chance(random, 0.5)
        ? [condition(random, depth - 1)]
        : condition(random, depth - 1),
    };
  if (r < 0.5)
    return {
      in: [
        pick(random, ['@faas.com', 'a', 'beta', 'red', 1, 'pro']),
        chance(random, 0.6) ? variable(random, depth) : [pick(random, WORDS), 'red', 'a', 1],
      ],
    };
  if (r < 0.56)
    return {
      in: [variable(random, depth), pick(random, [['red', 'blue'], ['a', 'b', ''], [1, 18, 42], 'abcdefgh'])],
    };
  if (r < 0.64)
    return {
      [pick(random, ['starts_with', 'ends_with'])]: [
        chance(random, 0.85) ? variable(random, depth) : literal(random, depth),
        pick(random, ['user-', '1', '@faas.com', '.com', 'a', '', 'pro']),
      ],
    };
  if (r < 0.74) {
    const version = (): JsonValue =>
      chance(random, 0.6)
        ? { var: pick(random, ['version', 'version', 'color', 'missing']) }
        : pick(random, VERSIONS);
    return {
      sem_ver: [version(), pick(random, ['=', '!=', '<', '<=', '>', '>=', '^', '~', '=']), version()],
    };
  }
  if (r < 0.78)
    return { missing: pick(random, [['email'], ['email', 'age'], ['user.plan'], ['a', 'b', 'c'], 'color']) };
  if (r < 0.8)
    return {
      missing_some: [
        pick(random, [1, 2]),
        pick(random, [
          ['email', 'age', 'color'],
          ['user.plan', 'x'],
        ]),
      ],
    };
  if (r < 0.84)
    return {
      [pick(random, ['some', 'all', 'none'])]: [
        { var: 'tags' },
        { '==': [{ var: '' }, pick(random, ['a', 'beta', 1])] },
      ],
    };
  if (r < 0.88)
    return { '>': [{ var: '$flagd.timestamp' }, pick(random, [{ var: 'time' }, NOW - 100, NOW + 100])] };
  if (r < 0.9) return { '==': [{ var: '$flagd.flagKey' }, pick(random, ['flag-1', 'flag-2', 'x'])] };
  if (r < 0.93) return { '<': [pick(random, [0, 18]), { var: 'age' }, pick(random, [65, 100])] };
  return comparison(random, depth);
};

const value = (random: Random, depth: number): JsonValue => {
  const r = random();
  if (depth <= 0 || r < 0.3) return operand(random, 0);
  if (r < 0.4)
    return {
      [pick(random, ['+', '-', '*', '/', '%'])]: [operand(random, depth - 1), operand(random, depth - 1)],
    };
  if (r < 0.45)
    return { [pick(random, ['min', 'max'])]: [operand(random, depth - 1), pick(random, [1, 10, 100])] };
  if (r < 0.55)
    return { cat: [operand(random, depth - 1), pick(random, ['-', '', 'x']), operand(random, depth - 1)] };
  if (r < 0.6)
    return {
      substr: [
        variable(random, depth),
        pick(random, [0, 1, -2]),
        ...(chance(random, 0.5) ? [pick(random, [2, -1])] : []),
      ],
    };
  if (r < 0.65) return { merge: [variable(random, depth), [1, 2]] };
  if (r < 0.7) return { map: [{ var: 'tags' }, { cat: [{ var: '' }, '!'] }] };
  if (r < 0.73) return { filter: [{ var: 'tags' }, { '!==': [{ var: '' }, 'a'] }] };
  if (r < 0.76) return { reduce: [{ var: 'tags' }, { '+': [{ var: 'accumulator' }, 1] }, 0] };
  if (r < 0.85) return condition(random, depth - 1);
  return { if: [condition(random, depth - 1), operand(random, depth - 1), operand(random, depth - 1)] };
};

const weight = (random: Random): JsonValue => pick(random, [0, 1, 5, 10, 25, 50, 100, 33, 1000]);

const fractionalTarget = (random: Random): JsonValue => {
  const entries: JsonValue[] = [];
  const count = 1 + Math.floor(random() * 4);
  for (let i = 0; i < count; i++) {
    const variant = chance(random, 0.9)
      ? pick(random, VARIANTS)
      : pick(random, [{ var: 'color' }, null, true, 3]);
    const r = random();
    if (r < 0.15) entries.push([variant]);
    else if (r < 0.2) entries.push([variant, { '+': [weight(random), 0] }]);
    else if (r < 0.22) entries.push([variant, pick(random, [-5, 2.5])]);
    else entries.push([variant, weight(random)]);
  }
  const r = random();
  if (r < 0.35) return { fractional: entries };
  const bucket = pick(random, [
    { var: 'email' },
    { var: 'targetingKey' },
    { cat: [{ var: '$flagd.flagKey' }, { var: 'targetingKey' }] },
    { cat: ['seed-', { var: 'user.id' }] },
    { var: 'age' },
    'constant-key',
  ] as JsonValue[]);
  return { fractional: [bucket, ...entries] };
};

const target = (random: Random, depth: number): JsonValue => {
  const r = random();
  if (depth <= 0 || r < 0.2)
    return chance(random, 0.8) ? pick(random, VARIANTS) : pick(random, [null, true, false, 1, 2]);
  if (r < 0.35) return fractionalTarget(random);
  if (r < 0.5) {
    const args: JsonValue[] = [];
    const pairs = 1 + Math.floor(random() * 3);
    for (let i = 0; i < pairs; i++) args.push(condition(random, depth - 1), target(random, depth - 1));
    if (chance(random, 0.8)) args.push(target(random, depth - 1));
    return { if: args };
  }
  if (r < 0.6) return { if: [condition(random, depth - 1), target(random, depth - 1)] };
  if (r < 0.7)
    return { '?:': [condition(random, depth - 1), target(random, depth - 1), target(random, depth - 1)] };
  if (r < 0.75) return condition(random, depth - 1);
  if (r < 0.8) return { cat: [pick(random, ['re', 'bl', 'gr']), pick(random, ['d', 'ue', 'een'])] };
  if (r < 0.85) return { or: [variable(random, depth), target(random, depth - 1)] };
  return { if: [condition(random, depth - 1), target(random, depth - 1), target(random, depth - 1)] };
};

// Every operator the engine knows, but `log`: it writes to the console, which would flood the run.
const OPERATORS = [...ENGINE_OPERATORS].filter((operator) => operator !== 'log');

/** Anything at all: odd argument shapes and types, to hold the engine's corner cases to flagd-core's. */
const chaos = (random: Random, depth: number): JsonValue => {
  const r = random();
  if (depth <= 0 || r < 0.3) {
    return pick(random, [
      null,
      true,
      false,
      0,
      1,
      -1,
      2.5,
      '',
      '0',
      '1',
      'a',
      'red',
      '1.2.3',
      [],
      {},
      [1, 'a'],
      ['red', 50],
      { var: pick(random, PATHS) },
      { var: '' },
      { var: ['', 1] },
      { var: '../index' },
      { var: '../../color' },
      { var: 'current' },
      { var: 'accumulator' },
    ] as JsonValue[]);
  }
  const op = pick(random, OPERATORS);
  const shape = random();
  if (shape < 0.1) return { [op]: chaos(random, depth - 1) };
  const count = Math.floor(random() * 4);
  return { [op]: Array.from({ length: count }, () => chaos(random, depth - 1)) };
};

interface Case {
  readonly key: string;
  readonly targeting: JsonValue;
}

/** What flagd-core picks: a variant key, or null for "no variant" (default, errors other than an unknown variant). */
function flagdVariant(core: FlagdCore, key: string, context: Record<string, unknown>): string | null {
  const flag = core.getFlag(key);
  if (!flag) throw new Error(`flagd-core lost ${key}`);
  let result: { reason: string; variant?: string; errorMessage?: string };
  try {
    result = flag.evaluate(context as never, SILENT as never) as typeof result;
  } catch {
    return null;
  }
  if (result.reason === 'TARGETING_MATCH') return result.variant ?? null;
  const unknown = /^Variant '([\s\S]*)' not found in flag with key '/.exec(result.errorMessage ?? '');
  // A variant the flag lacks is still the variant targeting picked: compileTargeting returns it too.
  if (unknown) return unknown[1] as string;
  return null;
}

function referenceTargetings(): Case[] {
  const cases: Case[] = [];
  const files = [
    `${REFERENCE}/full.json`,
    ...['positive', 'negative'].flatMap((kind) =>
      readdirSync(`${REFERENCE}/test/flags/${kind}`).map((f) => `${REFERENCE}/test/flags/${kind}/${f}`),
    ),
  ];
  for (const file of files) {
    const document = JSON.parse(readFileSync(file, 'utf8'));
    let text = JSON.stringify(document);
    for (const [name, logic] of Object.entries(document.$evaluators ?? {})) {
      text = text.replaceAll(JSON.stringify({ $ref: name }), JSON.stringify(logic));
    }
    const flags = JSON.parse(text).flags;
    const entries: [string, { targeting?: JsonValue }][] = Array.isArray(flags)
      ? flags.map((f) => [f.key, f])
      : Object.entries(flags);
    for (const [key, flag] of entries) {
      if (flag && typeof flag === 'object' && flag.targeting !== undefined)
        cases.push({ key: `ref-${cases.length}-${key}`, targeting: flag.targeting });
    }
  }
  return cases;
}

function generatedTargetings(count: number, seed: number): Case[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => ({
    key: `flag-${i % 3}-${i}`,
    targeting: target(random, 4),
  }));
}

function chaoticTargetings(count: number, seed: number): Case[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => ({
    key: `chaos-${i}`,
    targeting: i % 2 ? chaos(random, 4) : { if: [chaos(random, 3), chaos(random, 3), chaos(random, 3)] },
  }));
}

function compare(cases: readonly Case[], contexts: readonly Record<string, unknown>[]) {
  const flags = Object.fromEntries(
    cases.map((c) => [
      c.key,
      { state: 'ENABLED', variants: { [DEFAULT]: DEFAULT }, defaultVariant: DEFAULT, targeting: c.targeting },
    ]),
  );
  const core = new FlagdCore(undefined, SILENT as never);
  core.setConfigurations(JSON.stringify({ flags }));
  const mismatches: unknown[] = [];
  let compared = 0;
  for (const c of cases) {
    const ours = compileTargeting(c.targeting);
    for (const context of contexts) {
      compared++;
      const expected = flagdVariant(core, c.key, context);
      const actual = ours(context, c.key, NOW);
      if (expected !== actual && mismatches.length < 10)
        mismatches.push(JSON.stringify({ t: c.targeting, context, flagd: expected, ours: actual }));
    }
  }
  return { compared, mismatches };
}

describe('compileTargeting against flagd-core', () => {
  pinClockDuringSuite(NOW);

  it('picks the variants flagd-core picks for the reference documents', () => {
    const random = seededRandom(7);
    const contexts = [
      ...flagdReferenceContexts(NOW),
      ...Array.from({ length: 200 }, () => randomContext(random)),
    ];
    const { compared, mismatches } = compare(referenceTargetings(), contexts);
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(2000);
  });

  it('picks the variants flagd-core picks for generated targeting', () => {
    const random = seededRandom(20240601);
    const contexts = Array.from({ length: 60 }, () => randomContext(random));
    const { compared, mismatches } = compare(generatedTargetings(400, 42), contexts);
    expect(mismatches).toEqual([]);
    expect(compared).toBe(24_000);
  });

  it('agrees with flagd-core on unusual expressions too', () => {
    const random = seededRandom(99);
    const contexts = Array.from({ length: 25 }, () => randomContext(random));
    const { mismatches } = compare(chaoticTargetings(2000, 5), contexts);
    expect(mismatches).toEqual([]);
  });
});
