import type { Reason } from '../src/domain/evaluation-result.ts';
import {
  BOOLEAN_VARIANTS,
  type Flag,
  type FlagEnvironment,
  type FlagType,
  type Variant,
} from '../src/domain/flag.ts';
import type { Segment } from '../src/domain/segment.ts';
import { buildFlag, buildSegment, inEnvironments } from '../test/support/builders.ts';

// The flags every benchmark evaluates, written twice: as Flagstaff flags and segments, and as the
// flagd definition a flagd user would write for the same intent. bench/evaluator.ts checks that both
// give the same value, variant and reason on every benchmark context before it times anything.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const ENVIRONMENT = 'production';
const PROJECT_ID = 'prj_bench';

function segment(key: string, fields: Pick<Segment, 'match' | 'rules' | 'included'>): Segment {
  return buildSegment(key, { projectId: PROJECT_ID, ...fields });
}

export function flag(
  key: string,
  type: FlagType,
  variants: readonly Variant[],
  environment: FlagEnvironment,
  environmentKeys: readonly string[] = [ENVIRONMENT],
): Flag {
  return buildFlag(key, {
    projectId: PROJECT_ID,
    type,
    variants,
    environments: inEnvironments(environmentKeys, environment),
  });
}

const EMPLOYEE_IDS = Array.from({ length: 10 }, (_, i) => `user-${1000 + i * 37}`);

/** The two segments the targeted flag's rules name. */
export const SEGMENTS: readonly Segment[] = [
  segment('employees', {
    match: 'any',
    included: EMPLOYEE_IDS,
    rules: [{ type: 'attribute', attribute: 'email', operator: 'ends_with', value: '@flagstaff.example' }],
  }),
  segment('beta-testers', {
    match: 'all',
    included: [],
    rules: [
      { type: 'attribute', attribute: 'country', operator: 'in', values: ['NL', 'BE', 'DE', 'FR'] },
      { type: 'attribute', attribute: 'plan', operator: 'in', values: ['pro', 'team', 'enterprise'] },
      { type: 'attribute', attribute: 'app_version', operator: 'semver_gte', value: '2.0.0' },
    ],
  }),
];

const STRING_VARIANTS: readonly Variant[] = [
  { key: 'control', value: 'control' },
  { key: 'treatment-a', value: 'treatment-a' },
  { key: 'treatment-b', value: 'treatment-b' },
];

/** Enabled, no rules: reason `static`. */
export const STATIC_FLAG = flag('dark-mode', 'boolean', BOOLEAN_VARIANTS, {
  enabled: true,
  offVariant: 'off',
  defaultVariant: 'on',
  targets: [],
  rules: [],
});

/** The HTTP benchmark's flag: three rules over two segments (the second rule a rollout). */
export const TARGETED_FLAG = flag('checkout-redesign', 'string', STRING_VARIANTS, {
  enabled: true,
  offVariant: 'control',
  defaultVariant: 'control',
  targets: [],
  rules: [
    { id: 'staff', segments: ['employees'], conditions: [], serve: { variant: 'treatment-b' } },
    {
      id: 'beta-ios',
      segments: ['beta-testers'],
      conditions: [{ type: 'attribute', attribute: 'platform', operator: 'equals', value: 'ios' }],
      serve: {
        rollout: {
          weights: [
            { variant: 'treatment-a', weight: 50 },
            { variant: 'control', weight: 50 },
          ],
        },
      },
    },
    {
      id: 'beta-adults',
      segments: ['beta-testers'],
      conditions: [{ type: 'attribute', attribute: 'age', operator: 'gte', value: 18 }],
      serve: { variant: 'treatment-a' },
    },
  ],
});

/** A 50/30/20 split of everyone: reason `split`. */
export const FRACTIONAL_FLAG = flag('homepage-experiment', 'string', STRING_VARIANTS, {
  enabled: true,
  offVariant: 'control',
  defaultVariant: 'control',
  targets: [],
  rules: [],
  defaultRollout: {
    weights: [
      { variant: 'control', weight: 50 },
      { variant: 'treatment-a', weight: 30 },
      { variant: 'treatment-b', weight: 20 },
    ],
  },
});

const v = (name: string): Json => ({ var: name });

/** The same three flags for flagd, segments as shared `$evaluators`. */
export const FLAGD_CONFIGURATION = {
  $evaluators: {
    employees: {
      or: [{ in: [v('targetingKey'), EMPLOYEE_IDS] }, { ends_with: [v('email'), '@flagstaff.example'] }],
    },
    'beta-testers': {
      and: [
        { in: [v('country'), ['NL', 'BE', 'DE', 'FR']] },
        { in: [v('plan'), ['pro', 'team', 'enterprise']] },
        { sem_ver: [v('app_version'), '>=', '2.0.0'] },
      ],
    },
  },
  flags: {
    'dark-mode': { state: 'ENABLED', variants: { on: true, off: false }, defaultVariant: 'on' },
    'checkout-redesign': {
      state: 'ENABLED',
      variants: { control: 'control', 'treatment-a': 'treatment-a', 'treatment-b': 'treatment-b' },
      defaultVariant: 'control',
      targeting: {
        if: [
          { $ref: 'employees' },
          'treatment-b',
          { and: [{ $ref: 'beta-testers' }, { '==': [v('platform'), 'ios'] }] },
          {
            fractional: [
              ['treatment-a', 50],
              ['control', 50],
            ],
          },
          // flagd compares numbers with JavaScript's `>=`; the age is always present here.
          { and: [{ $ref: 'beta-testers' }, { '>=': [v('age'), 18] }] },
          'treatment-a',
          null,
        ],
      },
    },
    'homepage-experiment': {
      state: 'ENABLED',
      variants: { control: 'control', 'treatment-a': 'treatment-a', 'treatment-b': 'treatment-b' },
      defaultVariant: 'control',
      targeting: {
        fractional: [
          ['control', 50],
          ['treatment-a', 30],
          ['treatment-b', 20],
        ],
      },
    },
  },
};

/** flagd's reason for each of ours. */
export const FLAGD_REASONS: Record<Reason, string> = {
  targeting: 'TARGETING_MATCH',
  split: 'TARGETING_MATCH',
  default: 'DEFAULT',
  static: 'STATIC',
  disabled: 'DISABLED',
  error: 'ERROR',
  // flagd has no prerequisites: an exported flag whose prerequisite always fails serves its off variant statically.
  prerequisite_failed: 'STATIC',
};

/** The HTTP benchmark's context: ten attributes; it reaches the second rule's rollout. */
export const HTTP_CONTEXT = {
  targetingKey: 'user-48213',
  email: 'ann.devries@example.com',
  country: 'NL',
  plan: 'pro',
  app_version: '2.3.1',
  platform: 'ios',
  language: 'nl',
  age: 34,
  account_age_days: 420,
  beta_opt_in: true,
} as const;

/**
 * Contexts of ten attributes each, spread so that the targeted flag takes every path: staff by id and
 * by email, beta on iOS (split), beta adults, beta minors and non-beta users (default).
 */
export function benchmarkContexts(count: number): Record<string, Json>[] {
  const countries = ['NL', 'US', 'DE', 'BE', 'GB', 'FR'];
  const plans = ['free', 'pro', 'team', 'enterprise'];
  const versions = ['1.9.4', '2.0.0', '2.3.1', '3.0.0-beta.2', '1.2.0'];
  const platforms = ['ios', 'android', 'web'];
  return Array.from({ length: count }, (_, i) => ({
    targetingKey:
      i % 50 === 0 ? (EMPLOYEE_IDS[(i / 50) % EMPLOYEE_IDS.length] as string) : `user-${i * 7919}`,
    email: i % 23 === 0 ? `person${i}@flagstaff.example` : `person${i}@example.com`,
    country: countries[i % countries.length] as string,
    plan: plans[(i >> 1) % plans.length] as string,
    app_version: versions[(i >> 2) % versions.length] as string,
    platform: platforms[i % platforms.length] as string,
    language: i % 2 === 0 ? 'nl' : 'en',
    age: 14 + ((i * 13) % 60),
    account_age_days: (i * 31) % 2000,
    beta_opt_in: i % 3 === 0,
  }));
}
