import { describe, expect, it } from 'vitest';
import { changeLines, patchLines } from './patch-words.ts';

const flag = {
  key: 'banner',
  name: 'Banner',
  environments: { production: { enabled: false, offVariant: 'off', rules: [] } },
};

const dutchUsers = {
  id: 'rul_01m8x3k2',
  segments: ['dutch-users'],
  conditions: [],
  serve: { variant: 'on' },
};

describe('patchLines', () => {
  it('shows what top-level environment fields would change in the environment, and flag fields by name', () => {
    expect(patchLines({ enabled: true, name: 'Big banner' }, flag, 'production')).toEqual([
      { field: 'production: switch', now: 'off', next: 'on' },
      { field: 'name', now: '"Banner"', next: '"Big banner"' },
    ]);
  });

  it('reads `environments` and leaves out what would stay the same or was never there', () => {
    const patch = {
      environments: { production: { enabled: true, offVariant: 'off', rules: [], defaultRollout: null } },
    };
    expect(patchLines(patch, flag, 'development')).toEqual([
      { field: 'production: switch', now: 'off', next: 'on' },
    ]);
  });

  it('says when a field would be removed', () => {
    expect(patchLines({ offVariant: null }, flag, 'production')).toEqual([
      { field: 'production: served when off', now: 'off', next: '(removed)' },
    ]);
  });
});

describe('changeLines', () => {
  it('words each recorded change as the patch lines do, with the value it was based on', () => {
    expect(
      changeLines([
        { path: '/environments/production/enabled', before: false, after: true },
        { path: '/name', before: 'Banner', after: 'Big banner' },
        { path: '/environments/production/offVariant', before: 'off', after: null },
        { path: '/metadata/a~1b', before: undefined, after: 1 },
      ]),
    ).toEqual([
      { field: 'production: switch', now: 'off', next: 'on' },
      { field: 'name', now: '"Banner"', next: '"Big banner"' },
      { field: 'production: served when off', now: 'off', next: '(removed)' },
      { field: 'metadata a/b', now: '—', next: '1' },
    ]);
  });

  it('reads rules and rollouts as the Compare panel does, never as JSON with rule ids', () => {
    const [rules, rollout, variants] = changeLines(
      [
        { path: '/environments/production/rules', before: [], after: [dutchUsers] },
        {
          path: '/environments/production/defaultRollout',
          before: undefined,
          after: {
            weights: [
              { variant: 'on', weight: 1 },
              { variant: 'off', weight: 9 },
            ],
          },
        },
        {
          path: '/variants',
          before: [{ key: 'on', value: true }],
          after: [
            { key: 'on', value: true },
            { key: 'off', value: false },
          ],
        },
      ],
      'banner',
    );
    expect(rules).toEqual({
      field: 'production: rules',
      now: 'none',
      next: 'rule 1: in segment dutch-users → on',
    });
    expect(rollout).toEqual({
      field: 'production: default rollout',
      now: '—',
      next: 'a rollout: on 10 %, off 90 %',
    });
    expect(variants).toEqual({ field: 'variants', now: 'on = true', next: 'on = true, off = false' });
    expect(JSON.stringify([rules, rollout, variants])).not.toContain('rul_');
  });

  it("shows a value that is not of its field's shape as JSON rather than failing", () => {
    expect(changeLines([{ path: '/environments/production/rules', before: 'odd', after: [] }])).toEqual([
      { field: 'production: rules', now: '"odd"', next: 'none' },
    ]);
  });
});
