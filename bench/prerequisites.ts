import { BOOLEAN_VARIANTS, type Flag, type FlagEnvironment, type Prerequisite } from '../src/domain/flag.ts';
import { compileEnvironment } from '../src/evaluation/compile-environment.ts';
import { buildFlagEnvironment } from '../test/support/builders.ts';
import { benchmarkContexts, ENVIRONMENT, flag, SEGMENTS, TARGETED_FLAG } from './fixtures.ts';
import { type Row, ratio, si } from './stats.ts';
import { compare, evaluationWorkload, type Measured } from './timing.ts';

// The targeted flag evaluated with three prerequisites against the same flag without them (docs/product.md
// §10 target: ≥ 0.5×). The prerequisites are what teams put in front of a release: a kill switch
// for a region, a plan gate and a 90% rollout of the platform change, none of them constant.

const gate = (key: string, environment: Partial<FlagEnvironment>): Flag =>
  flag(key, 'boolean', BOOLEAN_VARIANTS, buildFlagEnvironment(environment));

const PREREQUISITE_FLAGS: readonly Flag[] = [
  gate('region-kill-switch', {
    rules: [
      {
        id: 'blocked',
        segments: [],
        conditions: [{ type: 'attribute', attribute: 'country', operator: 'in', values: ['KP', 'IR'] }],
        serve: { variant: 'off' },
      },
    ],
  }),
  gate('paid-plans', {
    defaultVariant: 'off',
    rules: [
      {
        id: 'paid',
        segments: [],
        conditions: [{ type: 'attribute', attribute: 'plan', operator: 'not_equals', value: 'free' }],
        serve: { variant: 'on' },
      },
    ],
  }),
  gate('platform-v2', {
    defaultRollout: {
      weights: [
        { variant: 'on', weight: 90 },
        { variant: 'off', weight: 10 },
      ],
    },
  }),
];

const required: readonly Prerequisite[] = PREREQUISITE_FLAGS.map((f) => ({ flag: f.key, variants: ['on'] }));
const production = TARGETED_FLAG.environments[ENVIRONMENT] as FlagEnvironment;
const GUARDED: Flag = {
  ...TARGETED_FLAG,
  key: 'checkout-redesign-guarded',
  environments: { [ENVIRONMENT]: { ...production, prerequisites: required } },
};

const CONTEXTS = benchmarkContexts(512);

export function prerequisitesBenchmark(): Row[] {
  const compiled = compileEnvironment({
    environmentKey: ENVIRONMENT,
    flags: [TARGETED_FLAG, GUARDED, ...PREREQUISITE_FLAGS],
    segments: SEGMENTS,
  });
  const workload = (key: string) => evaluationWorkload(compiled, key, CONTEXTS);
  let failed = 0;
  for (const context of CONTEXTS) {
    if (compiled.evaluate(GUARDED.key, context, 0)?.reason === 'prerequisite_failed') failed++;
  }
  const [guarded, plain] = compare([workload(GUARDED.key), workload(TARGETED_FLAG.key)], 11, 200) as [
    Measured,
    Measured,
  ];
  return [
    {
      section: 'evaluator',
      figure: 'targeted flag with 3 prerequisites, evaluations/s',
      value: si(guarded.rate),
      baseline: `${si(plain.rate)} same flag without`,
      ratio: guarded.ratio,
      target: '≥ 0.5×',
      met: guarded.ratio >= 0.5,
      note: `rounds ${ratio(guarded.ratioMin)}–${ratio(guarded.ratioMax)}; prerequisites failed for ${Math.round((failed / CONTEXTS.length) * 100)}% of contexts`,
    },
  ];
}
