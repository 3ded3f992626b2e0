import { describe, expect, it } from 'vitest';
import { buildFlag, buildFlagEnvironment, rolloutWeights } from '../../../../test/support/builders.ts';
import { compareEnvironments, copyPatch } from './environment-copy.ts';

const staging = buildFlagEnvironment({
  enabled: true,
  offVariant: 'off',
  defaultVariant: null,
  defaultRollout: { weights: rolloutWeights({ on: 1, off: 3 }) },
  targets: [{ variant: 'on', values: ['ada', 'bob'] }],
  rules: [
    {
      id: 'rul_staging',
      description: 'Beta testers',
      segments: ['beta'],
      conditions: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
      serve: { variant: 'on' },
    },
  ],
  prerequisites: [{ flag: 'platform', variants: ['on'] }],
});
const production = buildFlagEnvironment({
  enabled: false,
  defaultVariant: 'off',
  defaultRollout: { bucketBy: 'accountId', seed: 'old', weights: rolloutWeights({ on: 1, off: 1 }) },
  targeting: { if: [true, 'on', 'off'] },
});
const flag = buildFlag('banner', { environments: { staging, production, development: staging } });

describe("a flag's environments compared", () => {
  it('reads every setting side by side, in words, and marks what differs', () => {
    const rows = compareEnvironments(flag, 'staging', 'production');
    const of = (setting: string) => rows.find((r) => r.setting === setting);
    expect(of('Switch')).toEqual({ setting: 'Switch', left: 'on', right: 'off', same: false });
    expect(of('Served when off')).toMatchObject({ left: 'off', right: 'off', same: true });
    expect(of('Default')).toMatchObject({
      left: 'a rollout: on 25 %, off 75 %',
      right: 'a rollout: on 50 %, off 50 % by accountId (seed old)',
      same: false,
    });
    expect(of('Individual targets')?.left).toBe('on: ada, bob');
    expect(of('Rules')?.left).toBe('rule 1 (“Beta testers”): in segment beta and country is NL → on');
    expect(of('Rules')?.right).toBe('none');
    expect(of('Prerequisites')).toMatchObject({ left: 'platform serves on', right: 'none' });
    expect(of('JsonLogic targeting (imported)')).toMatchObject({ left: 'none', same: false });
  });

  it('finds two environments with the same settings the same, rule ids aside', () => {
    const copy = buildFlag('banner', {
      environments: {
        staging,
        production: { ...staging, rules: [{ ...staging.rules[0]!, id: 'rul_other' }] },
      },
    });
    expect(compareEnvironments(copy, 'staging', 'production').every((r) => r.same)).toBe(true);
  });
});

describe('copying one environment over another', () => {
  it('sends every setting of the source, and removes what only the target has', () => {
    expect(copyPatch(flag, 'staging', 'production')).toEqual({
      environments: {
        production: {
          enabled: true,
          offVariant: 'off',
          defaultVariant: null,
          targets: [{ variant: 'on', values: ['ada', 'bob'] }],
          rules: [
            {
              description: 'Beta testers',
              segments: ['beta'],
              conditions: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
              serve: { variant: 'on' },
            },
          ],
          // Merged into the target's rollout: its bucketBy and seed are overwritten with the defaults.
          defaultRollout: {
            weights: rolloutWeights({ on: 1, off: 3 }),
            bucketBy: 'targetingKey',
            seed: 'banner',
          },
          targeting: null,
          prerequisites: [{ flag: 'platform', variants: ['on'] }],
        },
      },
    });
  });

  it('leaves out what neither has', () => {
    const patch = copyPatch(flag, 'production', 'staging').environments as Record<string, object>;
    expect(patch.staging).toMatchObject({ prerequisites: null, targeting: { if: [true, 'on', 'off'] } });
    const same = copyPatch(flag, 'staging', 'development').environments as Record<string, object>;
    expect(Object.keys(same.development ?? {})).not.toContain('targeting');
  });
});
