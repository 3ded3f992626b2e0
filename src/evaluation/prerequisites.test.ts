import { describe, expect, test } from 'vitest';
import { buildFlag, buildFlagEnvironment } from '../../test/support/builders.ts';
import type { EvaluationContext } from '../domain/evaluation-result.ts';
import type { Flag, FlagEnvironment, Prerequisite, Variant } from '../domain/flag.ts';
import type { Rule } from '../domain/segment.ts';
import {
  type CompiledEnvironment,
  compileEnvironment,
  withFlag,
  withoutFlag,
} from './compile-environment.ts';

const ENV = 'production';
const NOW = 1_750_000_000;

function flag(key: string, environment: Partial<FlagEnvironment> = {}, fields: Partial<Flag> = {}): Flag {
  return buildFlag(key, { environments: { [ENV]: buildFlagEnvironment(environment) }, ...fields });
}

const requires = (key: string, ...variants: string[]): Prerequisite => ({
  flag: key,
  variants: variants.length > 0 ? variants : ['on'],
});

const planIs = (plan: string): Rule => ({
  type: 'attribute',
  attribute: 'plan',
  operator: 'equals',
  value: plan,
});

/** On for users on `plan`, off for the others. */
const onFor = (key: string, plan: string, environment: Partial<FlagEnvironment> = {}) =>
  flag(key, {
    defaultVariant: 'off',
    rules: [{ id: 'r1', segments: [], conditions: [planIs(plan)], serve: { variant: 'on' } }],
    ...environment,
  });

/** The flags compiled for ENV, with no segments. */
const compile = (...flags: Flag[]): CompiledEnvironment =>
  compileEnvironment({ environmentKey: ENV, flags, segments: [] });

function evaluate(compiled: CompiledEnvironment, key: string, context: EvaluationContext) {
  const result = compiled.evaluate(key, context, NOW);
  if (result === undefined) throw new Error(`no flag ${key}`);
  return result;
}

describe('prerequisites', () => {
  test('a chain of depth 3 runs the flag only when every link serves what the next requires', () => {
    const compiled = compile(
      flag('checkout', { prerequisites: [requires('payments')] }),
      flag('payments', { prerequisites: [requires('accounts')] }),
      flag('accounts', { prerequisites: [requires('platform')] }),
      onFor('platform', 'pro'),
    );
    expect(evaluate(compiled, 'checkout', { plan: 'pro' })).toMatchObject({
      variant: 'on',
      reason: 'static',
    });
    expect(evaluate(compiled, 'checkout', { plan: 'free' })).toMatchObject({
      variant: 'off',
      value: false,
      reason: 'prerequisite_failed',
      failedPrerequisite: 'payments',
    });
    expect(evaluate(compiled, 'accounts', { plan: 'free' })).toMatchObject({
      reason: 'prerequisite_failed',
      failedPrerequisite: 'platform',
    });
  });

  test('a diamond evaluates the shared prerequisite once per evaluation', () => {
    let evaluations = 0;
    const counting: Rule = {
      type: 'attribute',
      attribute: 'plan',
      operator: 'matches',
      value: '.*',
    };
    const shared = flag('shared', {
      defaultVariant: 'off',
      rules: [{ id: 'r', segments: [], conditions: [counting], serve: { variant: 'on' } }],
    });
    const compiled = compile(
      flag('top', { prerequisites: [requires('left'), requires('right')] }),
      flag('left', { prerequisites: [requires('shared')] }),
      flag('right', { prerequisites: [requires('shared')] }),
      shared,
    );
    // Count evaluations of the shared flag through a context getter its rule reads.
    const context = {
      get plan() {
        evaluations++;
        return 'pro';
      },
    };
    expect(evaluate(compiled, 'top', context)).toMatchObject({ variant: 'on' });
    expect(evaluations).toBe(1);
    evaluations = 0;
    compiled.evaluateAll(context, NOW, ['left', 'right', 'top']);
    // shared once as a prerequisite for the whole pass; flags evaluated directly are not memoised.
    expect(evaluations).toBe(1);
  });

  test('a disabled prerequisite fails, and serves the dependant its off variant', () => {
    const colours: Variant[] = [
      { key: 'red', value: 'r' },
      { key: 'green', value: 'g' },
    ];
    const compiled = compile(
      flag(
        'theme',
        { offVariant: 'red', defaultVariant: 'green', prerequisites: [requires('beta')] },
        { type: 'string', variants: colours },
      ),
      // A disabled flag serves its off variant; even when that is the required one, it fails.
      flag('beta', { enabled: false, offVariant: 'on' }),
    );
    expect(evaluate(compiled, 'theme', {})).toMatchObject({
      value: 'r',
      variant: 'red',
      reason: 'prerequisite_failed',
      failedPrerequisite: 'beta',
    });
  });

  test('a prerequisite serving a variant not listed fails; one serving a listed variant holds', () => {
    const colours: Variant[] = [
      { key: 'red', value: 'r' },
      { key: 'green', value: 'g' },
      { key: 'blue', value: 'b' },
    ];
    const palette = flag(
      'palette',
      {
        offVariant: 'red',
        defaultVariant: 'red',
        rules: [{ id: 'r', segments: [], conditions: [planIs('pro')], serve: { variant: 'blue' } }],
      },
      { type: 'string', variants: colours },
    );
    const compiled = compile(
      flag('banner', { prerequisites: [requires('palette', 'green', 'blue')] }),
      palette,
    );
    expect(evaluate(compiled, 'banner', { plan: 'pro' })).toMatchObject({ variant: 'on' });
    expect(evaluate(compiled, 'banner', { plan: 'free' })).toMatchObject({
      variant: 'off',
      reason: 'prerequisite_failed',
      failedPrerequisite: 'palette',
    });
  });

  test('a disabled dependant is disabled, whatever its prerequisites', () => {
    const compiled = compile(flag('a', { enabled: false, prerequisites: [requires('missing')] }));
    expect(evaluate(compiled, 'a', {})).toMatchObject({ reason: 'disabled' });
  });

  test('a prerequisite on a missing flag, or in a stored cycle, fails instead of looping', () => {
    const compiled = compile(
      flag('orphan', { prerequisites: [requires('gone')] }),
      onFor('a', 'pro', { prerequisites: [requires('b')] }),
      onFor('b', 'pro', { prerequisites: [requires('a')] }),
    );
    expect(evaluate(compiled, 'orphan', {})).toMatchObject({ reason: 'prerequisite_failed' });
    expect(evaluate(compiled, 'a', { plan: 'pro' }).reason).toBe('prerequisite_failed');
    expect(evaluate(compiled, 'b', { plan: 'pro' }).reason).toBe('prerequisite_failed');
  });

  test('a rollout prerequisite buckets each user as the flag does on its own', () => {
    const experiment = flag('experiment', {
      defaultRollout: {
        weights: [
          { variant: 'on', weight: 50 },
          { variant: 'off', weight: 50 },
        ],
      },
    });
    const compiled = compile(flag('new-checkout', { prerequisites: [requires('experiment')] }), experiment);
    const alone = compile(experiment);
    let ran = 0;
    for (let i = 0; i < 500; i++) {
      const context = { targetingKey: `user-${i}` };
      const inExperiment = evaluate(alone, 'experiment', context).variant === 'on';
      const result = evaluate(compiled, 'new-checkout', context);
      expect(result.reason === 'static').toBe(inExperiment);
      if (inExperiment) ran++;
    }
    expect(ran).toBeGreaterThan(150);
    expect(ran).toBeLessThan(350);
  });

  test('changing or removing a prerequisite flag updates the flags that require it', () => {
    const base = compile(
      flag('top', { prerequisites: [requires('middle')] }),
      flag('middle', { prerequisites: [requires('bottom')] }),
      flag('bottom'),
    );
    expect(evaluate(base, 'top', {}).variant).toBe('on');
    const bottomOff = withFlag(base, flag('bottom', { enabled: false }));
    expect(evaluate(bottomOff, 'top', {})).toMatchObject({
      reason: 'prerequisite_failed',
      failedPrerequisite: 'middle',
    });
    expect(evaluate(base, 'top', {}).variant).toBe('on');
    const middleGone = withoutFlag(base, 'middle');
    expect(evaluate(middleGone, 'top', {})).toMatchObject({
      reason: 'prerequisite_failed',
      failedPrerequisite: 'middle',
    });
  });
});

describe('patching a snapshot through the reverse prerequisite index', () => {
  const chain = () =>
    compileEnvironment({
      environmentKey: ENV,
      flags: [
        flag('top', { prerequisites: [requires('middle')] }),
        flag('middle', { prerequisites: [requires('bottom')] }),
        flag('bottom'),
        flag('other'),
      ],
      segments: [],
    });

  test('a change to a prerequisite reaches the flags that require it, through the chain, and no other', () => {
    const bottomOff = withFlag(chain(), flag('bottom', { enabled: false }));
    expect(evaluate(bottomOff, 'middle', {})).toMatchObject({
      reason: 'prerequisite_failed',
      failedPrerequisite: 'bottom',
    });
    expect(evaluate(bottomOff, 'top', {})).toMatchObject({ failedPrerequisite: 'middle' });
    expect(evaluate(bottomOff, 'other', {})).toMatchObject({ reason: 'static', variant: 'on' });
  });

  test('a flag gaining a prerequisite is recompiled when that prerequisite changes', () => {
    const base = withFlag(chain(), flag('other', { prerequisites: [requires('bottom')] }));
    const bottomOff = withFlag(base, flag('bottom', { enabled: false }));
    expect(evaluate(bottomOff, 'other', {})).toMatchObject({ reason: 'prerequisite_failed' });
    expect(evaluate(bottomOff, 'top', {})).toMatchObject({ reason: 'prerequisite_failed' });
    expect(evaluate(base, 'other', {}).variant).toBe('on');
  });

  test('a flag that drops a prerequisite no longer follows it', () => {
    const dropped = withFlag(chain(), flag('top'));
    const middleOff = withFlag(dropped, flag('middle', { enabled: false }));
    expect(evaluate(middleOff, 'top', {})).toMatchObject({ reason: 'static', variant: 'on' });
  });

  test('deleting a prerequisite fails its dependants, and creating it again restores them', () => {
    const gone = withoutFlag(chain(), 'bottom');
    expect(evaluate(gone, 'middle', {})).toMatchObject({
      reason: 'prerequisite_failed',
      failedPrerequisite: 'bottom',
    });
    expect(evaluate(gone, 'top', {})).toMatchObject({ failedPrerequisite: 'middle' });
    const back = withFlag(gone, flag('bottom'));
    expect(evaluate(back, 'top', {}).variant).toBe('on');
  });

  test('a deleted dependant stays deleted when its prerequisite changes afterwards', () => {
    const gone = withoutFlag(chain(), 'top');
    const middleOff = withFlag(gone, flag('middle', { enabled: false }));
    expect(middleOff.evaluate('top', {}, NOW)).toBeUndefined();
    expect(evaluate(middleOff, 'middle', {})).toMatchObject({ reason: 'disabled' });
    expect(evaluate(chain(), 'top', {}).variant).toBe('on');
  });

  test('every snapshot of a long run of writes still answers as it did when made', () => {
    let current = chain();
    const history: [CompiledEnvironment, boolean][] = [];
    for (let i = 0; i < 50; i++) {
      const enabled = i % 3 !== 0;
      current = withFlag(current, flag('bottom', { enabled }));
      history.push([current, enabled]);
    }
    for (const [snapshot, enabled] of history) {
      expect(evaluate(snapshot, 'top', {}).reason).toBe(enabled ? 'static' : 'prerequisite_failed');
    }
  });
});

describe('prerequisites against the same logic written out by hand', () => {
  // A small deterministic generator, so that a failure names a reproducible case.
  function random(seed: number) {
    let state = seed;
    return () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648;
    };
  }
  const plans = ['free', 'pro', 'team'];

  test('a hundred random acyclic projects answer as hand-written checks say', () => {
    for (let project = 0; project < 100; project++) {
      const next = random(project + 1);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
      const keys = ['f0', 'f1', 'f2', 'f3', 'f4', 'f5'];
      // Flag i may only require flags after it: acyclic by construction.
      const flags = keys.map((key, i) => {
        const later = keys.slice(i + 1).filter(() => next() < 0.4);
        return onFor(key, pick(plans), {
          enabled: next() < 0.85,
          prerequisites: later.map((other) => requires(other, pick(['on', 'off']))),
        });
      });
      const compiled = compile(...flags);
      const byKey = new Map(flags.map((f) => [f.key, f]));

      // The hand-written version: the flag's own rule, after checking each prerequisite in turn.
      const byHand = (key: string, plan: string): string => {
        const config = (byKey.get(key) as Flag).environments[ENV] as FlagEnvironment;
        if (!config.enabled) return 'disabled:off';
        for (const prerequisite of config.prerequisites ?? []) {
          const [reason, variant] = byHand(prerequisite.flag, plan).split(':');
          const holds = reason !== 'disabled' && reason !== 'prerequisite_failed';
          if (!holds || !prerequisite.variants.includes(variant as string)) return 'prerequisite_failed:off';
        }
        const rule = config.rules[0];
        const matches = rule !== undefined && (rule.conditions[0] as { value: string }).value === plan;
        return matches ? 'targeting:on' : 'default:off';
      };

      for (const plan of plans) {
        const all = compiled.evaluateAll({ plan }, NOW);
        for (const result of all) {
          expect(`${result.reason}:${result.variant}`, `project ${project}, ${result.key}, ${plan}`).toBe(
            byHand(result.key, plan),
          );
        }
      }
    }
  });
});
