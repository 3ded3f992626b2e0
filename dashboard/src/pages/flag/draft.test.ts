import { describe, expect, it } from 'vitest';
import type { Flag, FlagEnvironment } from '../../../../src/domain/flag.ts';
import { rolloutWeights, variantList } from '../../../../test/support/builders.ts';
import { conditionFromDraft, conditionToDraft } from '../condition-draft.ts';
import {
  draftOf,
  type EnvironmentDraft,
  environmentPatch,
  flagPatch,
  madeHundred,
  newRuleDraft,
  newVariantDraft,
  type RuleDraft,
  sharesOf,
  type VariantDraft,
  weightsOf,
} from './draft.ts';

const off: FlagEnvironment = {
  enabled: false,
  offVariant: 'control',
  defaultVariant: 'control',
  targets: [],
  rules: [],
};

function flag(environments: Record<string, Partial<FlagEnvironment>> = {}): Flag {
  return {
    id: 'flg_1',
    projectId: 'prj_1',
    key: 'colour',
    name: 'Colour',
    description: '',
    type: 'string',
    variants: variantList({ control: 'blue', treatment: 'green' }),
    tags: ['web'],
    archived: false,
    metadata: {},
    version: 3,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    environments: {
      development: { ...off, ...environments.development },
      production: { ...off, ...environments.production },
    },
  };
}

/** A new rule whose person chose to serve `control` (a new rule starts with no variant chosen). */
function ruleServingControl(variants: readonly VariantDraft[]): RuleDraft {
  const rule = newRuleDraft(variants);
  const control = variants.find((v) => v.key === 'control');
  return { ...rule, serve: { ...rule.serve, variant: control?.id ?? '' } };
}

describe('draftOf and environmentPatch', () => {
  it('give back what the API stored, for every environment', () => {
    const production: Partial<FlagEnvironment> = {
      enabled: true,
      defaultRollout: {
        bucketBy: 'company',
        weights: rolloutWeights({ control: 50, treatment: 50 }),
      },
      targets: [{ variant: 'treatment', values: ['qa-1', 'qa-2'] }],
      rules: [
        {
          id: 'rul_1',
          description: 'Dutch users',
          segments: ['nl'],
          conditions: [{ type: 'attribute', attribute: 'plan', operator: 'in', values: ['pro', 'team'] }],
          serve: { variant: 'treatment' },
        },
      ],
    };
    const stored = flag({ production });
    const draft = draftOf(stored);
    const variants = draft.variants;
    expect(environmentPatch(draft.environments.production as never, variants)).toEqual({
      offVariant: 'control',
      defaultVariant: 'control',
      ...production,
    });
    expect(flagPatch('string', draft, draft)).toEqual({});
  });

  it('sends a rule that was left empty as a list of nothing, never as "everyone"', () => {
    const draft = draftOf(flag());
    const rule = ruleServingControl(draft.variants);
    const patch = environmentPatch(
      { ...(draft.environments.production as EnvironmentDraft), rules: [rule] },
      draft.variants,
    );
    expect(patch.rules).toEqual([{ segments: [], conditions: [], serve: { variant: 'control' } }]);
  });

  it('adds a segment that was chosen in the picker but not added', () => {
    const draft = draftOf(flag());
    const rule = { ...ruleServingControl(draft.variants), pick: 'beta' };
    const patch = environmentPatch(
      { ...(draft.environments.production as EnvironmentDraft), rules: [rule] },
      draft.variants,
    );
    expect(patch.rules).toEqual([{ segments: ['beta'], conditions: [], serve: { variant: 'control' } }]);
  });

  it('says "matchAll" only when everyone was chosen, and then sends no segments', () => {
    const draft = draftOf(flag());
    const rule = { ...ruleServingControl(draft.variants), everyone: true, segments: ['beta'] };
    const patch = environmentPatch(
      { ...(draft.environments.production as EnvironmentDraft), rules: [rule] },
      draft.variants,
    );
    expect(patch.rules).toEqual([{ matchAll: true, serve: { variant: 'control' } }]);
  });

  it('reads a stored rule with neither segments nor conditions as the everyone it always was', () => {
    const stored = flag({
      production: { rules: [{ id: 'rul_1', segments: [], conditions: [], serve: { variant: 'treatment' } }] },
    });
    const rule = draftOf(stored).environments.production?.rules[0];
    expect(rule?.everyone).toBe(true);
  });
});

describe('renaming and removing variants', () => {
  it('carries a rename through every reference in every environment', () => {
    const stored = flag({
      production: {
        enabled: true,
        offVariant: 'treatment',
        targets: [{ variant: 'treatment', values: ['qa-1'] }],
        rules: [
          {
            id: 'rul_1',
            segments: ['beta'],
            conditions: [],
            serve: {
              rollout: {
                weights: rolloutWeights({ control: 1, treatment: 3 }),
              },
            },
          },
        ],
      },
    });
    const initial = draftOf(stored);
    const renamed = {
      ...initial,
      variants: initial.variants.map((v) => ({ ...v, key: v.key === 'control' ? 'blue' : 'green' })),
    };
    const patch = flagPatch('string', renamed, initial) as { environments: Record<string, never> };
    expect(Object.keys(patch.environments)).toEqual(['development', 'production']);
    expect(patch.environments.development).toMatchObject({ offVariant: 'blue', defaultVariant: 'blue' });
    expect(patch.environments.production).toMatchObject({
      offVariant: 'green',
      defaultVariant: 'blue',
      targets: [{ variant: 'green', values: ['qa-1'] }],
      rules: [
        {
          serve: {
            rollout: {
              weights: rolloutWeights({ blue: 1, green: 3 }),
            },
          },
        },
      ],
    });
  });

  it('keeps references through a key typed letter by letter, even when it is empty for a moment', () => {
    const initial = draftOf(flag());
    let draft = initial;
    for (const key of ['contro', '', 'b', 'blue']) {
      draft = { ...draft, variants: draft.variants.map((v, i) => (i === 0 ? { ...v, key } : v)) };
    }
    const patch = flagPatch('string', draft, initial) as { environments: Record<string, never> };
    expect(patch.environments.production).toMatchObject({ offVariant: 'blue', defaultVariant: 'blue' });
  });

  it('leaves no weight or target for a removed variant, and gives a new one a row of its own', () => {
    const stored = flag({
      production: {
        defaultRollout: {
          weights: rolloutWeights({ control: 50, treatment: 50 }),
        },
        targets: [{ variant: 'treatment', values: ['qa-1'] }],
      },
    });
    const initial = draftOf(stored);
    const fresh = newVariantDraft('string', 'orange', 'orange');
    const draft = { ...initial, variants: [initial.variants[0], fresh] as never };
    const patch = flagPatch('string', draft, initial) as { environments: Record<string, never> };
    expect(patch.environments.production).toMatchObject({
      defaultRollout: {
        weights: rolloutWeights({ control: 50, orange: 0 }),
      },
      targets: [],
    });
  });
});

describe('rollout weights', () => {
  it('shows relative weights as the percentages they give', () => {
    expect(sharesOf([50, 30, 20])).toEqual([50, 30, 20]);
    expect(sharesOf([1, 1])).toEqual([50, 50]);
    expect(sharesOf([1, 3])).toEqual([25, 75]);
    expect(sharesOf([0, 0])).toEqual([0, 0]);
  });

  it('makes them add up to 100 with the same split', () => {
    const draft = draftOf(flag());
    const variants = [...draft.variants, newVariantDraft('string', 'c', 'c')];
    const ids = variants.map((v) => v.id);
    const thirds = madeHundred(
      {
        bucketBy: '',
        weights: { [ids[0] as string]: '1', [ids[1] as string]: '1', [ids[2] as string]: '1' },
      },
      variants,
    );
    expect(weightsOf(thirds, variants)).toEqual([34, 33, 33]);
    const scaled = madeHundred(
      { bucketBy: '', weights: { [ids[0] as string]: '3', [ids[1] as string]: '1' } },
      variants,
    );
    expect(weightsOf(scaled, variants)).toEqual([75, 25, 0]);
    const none = madeHundred({ bucketBy: '', weights: {} }, draft.variants);
    expect(weightsOf(none, draft.variants)).toEqual([50, 50]);
  });
});

describe('conditionFromDraft', () => {
  it.each([
    [
      { type: 'attribute', attribute: ' plan ', operator: 'in', text: 'pro, team\nfree', negate: false },
      { type: 'attribute', attribute: 'plan', operator: 'in', values: ['pro', 'team', 'free'] },
    ],
    [
      { type: 'attribute', attribute: 'seats', operator: 'gte', text: '5', negate: false },
      { type: 'attribute', attribute: 'seats', operator: 'gte', value: 5 },
    ],
    [
      { type: 'attribute', attribute: 'seats', operator: 'gte', text: 'five', negate: false },
      { type: 'attribute', attribute: 'seats', operator: 'gte', value: 'five' },
    ],
    [
      { type: 'attribute', attribute: 'email', operator: 'exists', text: 'ignored', negate: true },
      { type: 'attribute', attribute: 'email', operator: 'exists', negate: true },
    ],
    [
      { type: 'segment', segment: 'beta', negate: false },
      { type: 'segment', segment: 'beta' },
    ],
  ] as const)('%j → %j', (draft, rule) => {
    expect(conditionFromDraft(draft as never)).toEqual(rule);
    expect(conditionFromDraft(conditionToDraft(rule as never))).toEqual(rule);
  });

  it('sends a date as UTC and a date that does not parse as typed', () => {
    const at = conditionFromDraft({
      type: 'attribute',
      attribute: 'since',
      operator: 'after',
      text: '2026-03-01T12:00:00',
      negate: false,
    });
    expect(at).toMatchObject({ value: new Date('2026-03-01T12:00:00').toISOString() });
    const bad = conditionFromDraft({
      type: 'attribute',
      attribute: 'since',
      operator: 'after',
      text: 'soon',
      negate: false,
    });
    expect(bad).toMatchObject({ value: 'soon' });
  });
});
