import { describe, expect, it } from 'vitest';
import { audienceWords, conditionWords, ruleWords } from './rule-words.ts';

describe('rules in words', () => {
  it('words each kind of condition', () => {
    expect(conditionWords({ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' })).toBe(
      'country is NL',
    );
    expect(
      conditionWords({ type: 'attribute', attribute: 'plan', operator: 'in', values: ['pro', 'team'] }),
    ).toBe('plan is one of pro, team');
    expect(conditionWords({ type: 'attribute', attribute: 'email', operator: 'exists' })).toBe(
      'email is set',
    );
    expect(
      conditionWords({
        type: 'attribute',
        attribute: 'email',
        operator: 'ends_with',
        value: '@x.com',
        negate: true,
      }),
    ).toBe('not (email ends with @x.com)');
    expect(conditionWords({ type: 'segment', segment: 'beta' })).toBe('in segment beta');
    expect(conditionWords({ type: 'segment', segment: 'beta', negate: true })).toBe('not in segment beta');
  });

  it('words a rule by its number, description and audience', () => {
    const rule = {
      description: 'Beta testers',
      segments: ['beta'],
      conditions: [{ type: 'attribute' as const, attribute: 'age', operator: 'gte' as const, value: 18 }],
    };
    expect(ruleWords(2, rule)).toBe('rule 2 (“Beta testers”): in segment beta and age ≥ 18');
    expect(audienceWords({ matchAll: true, segments: [], conditions: [] })).toBe('everyone');
  });
});
