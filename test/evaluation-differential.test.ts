import { FlagdCore } from '@openfeature/flagd-core';
import { describe, expect, test } from 'vitest';
import { FLAGD_REASONS } from '../bench/fixtures.ts';
import type { Flag, FlagEnvironment, FlagType, Rollout, TargetingRule, Variant } from '../src/domain/flag.ts';
import type { AttributeRule, Operator, Rule, Segment } from '../src/domain/segment.ts';
import { compileEnvironment } from '../src/evaluation/compile-environment.ts';
import { buildFlag, buildSegment } from './support/builders.ts';
import { type Random, seededRandom } from './support/random.ts';

// Random flags, written both as Flagstaff rules and by hand as the flagd definition a user would
// write for the same intent, evaluated by compileEnvironment and by @openfeature/flagd-core: any
// difference in value, variant or reason is a bug in one translation or the other.
// Only what flagd can express is generated (no regex, no dates), and only ASCII text: flagd-core's
// JavaScript hash reads UTF-16 code units, not UTF-8 (see src/evaluation/bucketing.test.ts).

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const ENV = 'production';
const COUNTRIES = ['NL', 'BE', 'DE', 'FR', 'US'];
const PLANS = ['free', 'pro', 'team', 'enterprise'];
const DOMAINS = ['example.com', 'corp.example', 'test.org', 'mail.nl'];
const VERSIONS = [
  '1.0.0',
  '1.2.0',
  '1.2.3',
  '1.10.0',
  '2.0.0-beta.1',
  '2.0.0',
  'v2.1.0',
  '1.5',
  '3',
  'latest',
  '1.2.3.4',
];

function generator(random: Random) {
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const chance = (p: number) => random() < p;

  function condition(): AttributeRule {
    const negate = chance(0.15) ? { negate: true } : {};
    const rule = (
      attribute: string,
      operator: Operator,
      operand: Pick<AttributeRule, 'value' | 'values'> = {},
    ): AttributeRule => ({ type: 'attribute', attribute, operator, ...operand, ...negate });
    switch (int(12)) {
      case 0:
        return rule('country', 'equals', { value: pick(COUNTRIES) });
      case 1:
        return rule('plan', 'not_equals', { value: pick(PLANS) });
      case 2:
        return rule('country', 'in', { values: [pick(COUNTRIES), pick(COUNTRIES)] });
      case 3:
        return rule('plan', 'not_in', { values: [pick(PLANS), pick(PLANS)] });
      case 4:
        return rule('email', 'starts_with', { value: pick(['a', 'b', 'user-1', 'c']) });
      case 5:
        return rule('email', 'ends_with', { value: `@${pick(DOMAINS)}` });
      case 6:
        return rule('email', 'contains', { value: pick(['.nl', 'corp', 'user-2']) });
      case 7:
        return rule(
          'version',
          pick(['semver_eq', 'semver_gt', 'semver_gte', 'semver_lt', 'semver_lte'] as const),
          {
            value: pick(VERSIONS.slice(0, 9)),
          },
        );
      case 8:
        return rule('age', pick(['gt', 'gte', 'lt', 'lte'] as const), {
          value: pick([18, 21, 30, 65, 17.5]),
        });
      case 9:
        return rule('age', 'equals', { value: pick(['30', '18', 42]) });
      case 10:
        return rule(pick(['plan', 'age', 'org.id']), 'exists');
      default:
        return rule(pick(['plan', 'email', 'org.id']), 'not_exists');
    }
  }

  function segments(count: number): Segment[] {
    const result: Segment[] = [];
    for (let i = 0; i < count; i++) {
      const rules: Rule[] = Array.from({ length: int(3) }, condition);
      // Nesting only refers to earlier segments, so there is no cycle.
      if (i > 0 && chance(0.4))
        rules.push({ type: 'segment', segment: `seg-${int(i)}`, ...(chance(0.3) ? { negate: true } : {}) });
      result.push(
        buildSegment(`seg-${i}`, {
          id: `seg_${i}`,
          match: chance(0.5) ? 'all' : 'any',
          rules,
          included: chance(0.3) ? [`user-${int(50)}`, `user-${int(50)}`] : [],
          excluded: chance(0.3) ? [`user-${int(50)}`] : [],
        }),
      );
    }
    return result;
  }

  function variantList(type: FlagType): Variant[] {
    if (type === 'boolean') {
      return [
        { key: 'on', value: true },
        { key: 'off', value: false },
      ];
    }
    const count = 2 + int(3);
    return Array.from({ length: count }, (_, i) => ({
      key: `v${i}`,
      value: type === 'number' ? i * 10 + 0.5 : `value-${i}`,
    }));
  }

  function rollout(variants: readonly Variant[], flagKey: string): Rollout {
    const weights = variants.map((v) => ({ variant: v.key, weight: pick([0, 1, 5, 20, 33, 50, 100]) }));
    return {
      ...(chance(0.3) ? { seed: `${flagKey}-exp${int(3)}` } : {}),
      ...(chance(0.3) ? { bucketBy: pick(['email', 'org.id', 'age']) } : {}),
      weights,
    };
  }

  function flag(index: number, segmentKeys: readonly string[]): Flag {
    const key = `flag-${index}`;
    const type = pick<FlagType>(['boolean', 'string', 'number']);
    const variants = variantList(type);
    const serve = (): TargetingRule['serve'] =>
      chance(0.3) ? { rollout: rollout(variants, key) } : { variant: pick(variants).key };
    const shape = int(10);
    const rules: TargetingRule[] =
      shape === 0
        ? []
        : Array.from({ length: 1 + int(3) }, (_, i) => ({
            id: `r${i}`,
            segments: chance(0.3) && segmentKeys.length > 0 ? [pick(segmentKeys)] : [],
            conditions: Array.from({ length: int(3) }, condition),
            serve: serve(),
          }));
    const environment: FlagEnvironment = {
      enabled: chance(0.9),
      offVariant: null,
      defaultVariant: pick(variants).key,
      targets:
        shape !== 0 && chance(0.3)
          ? [{ variant: pick(variants).key, values: [`user-${int(50)}`, `user-${int(50)}`] }]
          : [],
      rules,
      ...(shape !== 0 && chance(0.3) ? { defaultRollout: rollout(variants, key) } : {}),
    };
    return buildFlag(key, { id: `flg_${index}`, type, variants, environments: { [ENV]: environment } });
  }

  function context(): Record<string, Json> {
    const result: Record<string, Json> = {};
    if (chance(0.9)) result.targetingKey = `user-${int(60)}`;
    if (chance(0.8)) result.country = pick(COUNTRIES);
    if (chance(0.8)) result.plan = pick(PLANS);
    if (chance(0.8))
      result.email = `${pick(['ann', 'bob', 'user-1', 'user-2', 'carol'])}${int(100)}@${pick(DOMAINS)}`;
    if (chance(0.8)) result.version = pick(VERSIONS);
    if (chance(0.8))
      result.age = chance(0.8) ? pick([16, 17.5, 18, 21, 30, 42, 65, 80]) : pick(['30', '18', '42']);
    if (chance(0.5)) result.org = { id: `org-${int(20)}` };
    return result;
  }

  return { segments, flag, context };
}

// ---- The same flags written by hand in flagd's JsonLogic ----

const variable = (name: string): Json => ({ var: name });
const present = (name: string): Json => ({ '!=': [variable(name), null] });

function conditionLogic(rule: Rule, segments: ReadonlyMap<string, Segment>): Json {
  if (rule.type === 'segment') {
    const inSegment = segmentLogic(segments.get(rule.segment) as Segment, segments);
    return rule.negate ? { '!': inSegment } : inSegment;
  }
  const v = variable(rule.attribute);
  const value = rule.value as Json;
  const values = (rule.values ?? []) as Json[];
  let logic: Json;
  switch (rule.operator) {
    case 'equals':
      logic = { '==': [v, String(value)] };
      break;
    case 'not_equals':
      logic = { and: [present(rule.attribute), { '!=': [v, String(value)] }] };
      break;
    case 'in':
      logic = { in: [v, values] };
      break;
    case 'not_in':
      logic = { and: [present(rule.attribute), { '!': { in: [v, values] } }] };
      break;
    case 'starts_with':
    case 'ends_with':
      logic = { [rule.operator]: [v, value] };
      break;
    case 'contains':
      logic = { and: [present(rule.attribute), { in: [value, v] }] };
      break;
    case 'semver_eq':
    case 'semver_gt':
    case 'semver_gte':
    case 'semver_lt':
    case 'semver_lte': {
      const op = { semver_eq: '=', semver_gt: '>', semver_gte: '>=', semver_lt: '<', semver_lte: '<=' }[
        rule.operator
      ];
      logic = { sem_ver: [v, op, value] };
      break;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[rule.operator];
      // JavaScript reads null as 0 in `<`, so a missing attribute must be ruled out first.
      logic = { and: [present(rule.attribute), { [op]: [v, value] }] };
      break;
    }
    case 'exists':
      logic = present(rule.attribute);
      break;
    case 'not_exists':
      logic = { '==': [v, null] };
      break;
    default:
      throw new Error(`no flagd form for ${rule.operator}`);
  }
  return rule.negate ? { '!': logic } : logic;
}

function segmentLogic(segment: Segment, segments: ReadonlyMap<string, Segment>): Json {
  const rules = segment.rules.map((rule) => conditionLogic(rule, segments));
  const rulesHold: Json = rules.length === 0 ? false : { [segment.match === 'any' ? 'or' : 'and']: rules };
  return {
    if: [
      { in: [variable('targetingKey'), [...segment.excluded]] },
      false,
      { in: [variable('targetingKey'), [...segment.included]] },
      true,
      rulesHold,
    ],
  };
}

function rolloutLogic(rollout: Rollout, flagKey: string): Json {
  const bucketBy = rollout.bucketBy ?? 'targetingKey';
  const fractional = {
    fractional: [
      { cat: [rollout.seed ?? flagKey, variable(bucketBy)] },
      ...rollout.weights.map((w) => [w.variant, w.weight] as Json),
    ],
  };
  // flagd would hash `seed + "null"`; Flagstaff serves the default to users it cannot bucket.
  return { if: [present(bucketBy), fractional, null] };
}

function flagdDefinition(flag: Flag, segments: ReadonlyMap<string, Segment>): Json {
  const config = flag.environments[ENV] as FlagEnvironment;
  const branches: Json[] = [];
  for (const target of config.targets)
    branches.push({ in: [variable('targetingKey'), [...target.values]] }, target.variant);
  for (const rule of config.rules) {
    const parts = [
      ...rule.segments.map((key) => segmentLogic(segments.get(key) as Segment, segments)),
      ...rule.conditions.map((c) => conditionLogic(c, segments)),
    ];
    branches.push(
      parts.length === 0 ? true : { and: parts },
      'rollout' in rule.serve ? rolloutLogic(rule.serve.rollout, flag.key) : rule.serve.variant,
    );
  }
  if (config.defaultRollout) branches.push(true, rolloutLogic(config.defaultRollout, flag.key));
  const definition: Record<string, Json> = {
    state: config.enabled ? 'ENABLED' : 'DISABLED',
    variants: Object.fromEntries(flag.variants.map((v) => [v.key, v.value as Json])),
    defaultVariant: config.defaultVariant,
  };
  // An `if` with no else yields null: flagd then serves defaultVariant with reason DEFAULT.
  if (branches.length > 0) definition.targeting = { if: branches };
  return definition;
}

function compareWithFlagd(
  flags: readonly Flag[],
  definitions: ReadonlyMap<string, Json>,
  compiled: ReturnType<typeof compileEnvironment>,
  contexts: readonly Record<string, Json>[],
): { differences: string[]; seen: Map<string, number> } {
  const core = new FlagdCore();
  core.setConfigurations(JSON.stringify({ flags: Object.fromEntries(definitions) }));
  const seen = new Map<string, number>();
  const differences: string[] = [];
  for (const context of contexts) {
    for (const flag of flags) {
      const ours = compiled.evaluate(flag.key, context, 0);
      if (ours === undefined) throw new Error(`missing ${flag.key}`);
      const theirs =
        flag.type === 'boolean'
          ? core.resolveBooleanEvaluation(flag.key, false, context)
          : flag.type === 'number'
            ? core.resolveNumberEvaluation(flag.key, -1, context)
            : core.resolveStringEvaluation(flag.key, '<sdk default>', context);
      seen.set(ours.reason, (seen.get(ours.reason) ?? 0) + 1);
      // flagd serves the caller's default while disabled; Flagstaff serves the off variant, none here.
      const same =
        FLAGD_REASONS[ours.reason] === theirs.reason &&
        (ours.reason === 'disabled'
          ? ours.value === null
          : ours.value === theirs.value && ours.variant === (theirs.variant ?? null));
      if (!same && differences.length < 10) {
        differences.push(
          `${flag.key} ${JSON.stringify(context)}: ours ${JSON.stringify([ours.value, ours.variant, ours.reason])}, flagd ${JSON.stringify([theirs.value, theirs.variant, theirs.reason, theirs.errorMessage])}\n${JSON.stringify(definitions.get(flag.key))}`,
        );
      }
    }
  }
  return { differences, seen };
}

describe('differential evaluation against flagd-core', () => {
  const random = seededRandom(20250101);
  const generate = generator(random);
  const segments = generate.segments(30);
  const segmentMap = new Map(segments.map((s) => [s.key, s]));
  const flags = Array.from({ length: 300 }, (_, i) =>
    generate.flag(
      i,
      segments.map((s) => s.key),
    ),
  );
  const contexts = Array.from({ length: 2000 }, generate.context);
  const definitions = new Map(flags.map((f) => [f.key, flagdDefinition(f, segmentMap)]));

  // 600,000 evaluations on each side: on a shared machine this takes longer than the default 20 s.
  test('gives the same value, variant and reason as flagd-core for 300 random flags and 2,000 random contexts', () => {
    const compiled = compileEnvironment({ environmentKey: ENV, flags, segments });
    const { differences, seen } = compareWithFlagd(flags, definitions, compiled, contexts);
    expect(differences).toEqual([]);
    // The generator must reach every reason often, or the comparison proves little. flagd has no
    // prerequisites, so the generator makes none (src/evaluation/prerequisites.test.ts covers them);
    // native flags never end in `error` (only imported targeting that does not compile does).
    const reachable = Object.keys(FLAGD_REASONS).filter((r) => r !== 'prerequisite_failed' && r !== 'error');
    for (const reason of reachable) expect(seen.get(reason) ?? 0, reason).toBeGreaterThan(5000);
  }, 60_000);

  test('evaluates the same flags imported as flagd definitions (JsonLogic targeting) as flagd-core does', () => {
    // What a flagd import stores (docs/product.md §6): the targeting as is, no off variant, no native rules.
    const imported = flags.map((flag): Flag => {
      const definition = definitions.get(flag.key) as {
        state: string;
        defaultVariant: string;
        targeting?: Json;
      };
      const environment: FlagEnvironment = {
        enabled: definition.state === 'ENABLED',
        offVariant: null,
        defaultVariant: definition.defaultVariant,
        targets: [],
        rules: [],
        ...(definition.targeting === undefined ? {} : { targeting: definition.targeting }),
      };
      return { ...flag, environments: { [ENV]: environment } };
    });
    const compiled = compileEnvironment({ environmentKey: ENV, flags: imported, segments: [] });
    const { differences } = compareWithFlagd(imported, definitions, compiled, contexts.slice(0, 500));
    expect(differences).toEqual([]);
  });
});
