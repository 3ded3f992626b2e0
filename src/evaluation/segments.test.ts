import { describe, expect, test } from 'vitest';
import { buildSegment } from '../../test/support/builders.ts';
import type { EvaluationContext } from '../domain/evaluation-result.ts';
import type { Rule, Segment } from '../domain/segment.ts';
import { compileRule, compileSegments, EvaluationPass, findSegmentCycle } from './segments.ts';

const segment = buildSegment;

const dutch: Rule = { type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' };
const pro: Rule = { type: 'attribute', attribute: 'plan', operator: 'equals', value: 'pro' };
const ref = (key: string, negate?: boolean): Rule => ({
  type: 'segment',
  segment: key,
  ...(negate ? { negate } : {}),
});

function member(segments: readonly Segment[], key: string, context: EvaluationContext): boolean {
  const compiled = compileSegments(segments);
  const test = compiled.get(key);
  if (test === undefined) throw new Error(`no segment ${key}`);
  const targetingKey = typeof context.targetingKey === 'string' ? context.targetingKey : undefined;
  return test(context, targetingKey, new EvaluationPass());
}

describe('segments', () => {
  test.each<[string, Segment, EvaluationContext, boolean]>([
    [
      'holds a user who satisfies every rule of a match-all segment',
      segment('s', { rules: [dutch, pro] }),
      { country: 'NL', plan: 'pro' },
      true,
    ],
    [
      'refuses a user who fails one rule of a match-all segment',
      segment('s', { rules: [dutch, pro] }),
      { country: 'NL', plan: 'free' },
      false,
    ],
    [
      'holds a user who satisfies one rule of a match-any segment',
      segment('s', { match: 'any', rules: [dutch, pro] }),
      { country: 'DE', plan: 'pro' },
      true,
    ],
    [
      'refuses a user who satisfies no rule of a match-any segment',
      segment('s', { match: 'any', rules: [dutch, pro] }),
      { country: 'DE' },
      false,
    ],
    [
      'holds an included user whatever the rules say',
      segment('s', { rules: [dutch], included: ['u1'] }),
      { targetingKey: 'u1', country: 'DE' },
      true,
    ],
    [
      'refuses an excluded user whatever the rules say',
      segment('s', { rules: [dutch], excluded: ['u1'] }),
      { targetingKey: 'u1', country: 'NL' },
      false,
    ],
    [
      'lets excluded win over included',
      segment('s', { included: ['u1'], excluded: ['u1'] }),
      { targetingKey: 'u1' },
      false,
    ],
    [
      'falls back to the rules for a user in neither list',
      segment('s', { rules: [dutch], included: ['u2'], excluded: ['u3'] }),
      { targetingKey: 'u1', country: 'NL' },
      true,
    ],
    [
      'uses only the rules for a user without a targetingKey',
      segment('s', { rules: [dutch], excluded: ['u1'] }),
      { country: 'NL' },
      true,
    ],
    [
      'holds nobody but its included users when it has no rules',
      segment('s', { included: ['u1'] }),
      { targetingKey: 'u2' },
      false,
    ],
    [
      'holds nobody when it has no rules and match any',
      segment('s', { match: 'any' }),
      { targetingKey: 'u2' },
      false,
    ],
  ])('%s', (_name, seg, context, expected) => {
    expect(member([seg], seg.key, context)).toBe(expected);
  });

  describe('nested segment rules', () => {
    const nl = segment('nl', { rules: [dutch], excluded: ['renegade'] });
    const nlPro = segment('nl-pro', { rules: [ref('nl'), pro] });
    const notNl = segment('not-nl', { rules: [ref('nl', true)] });
    const outer = segment('outer', { match: 'any', rules: [ref('nl-pro'), ref('vip')] });
    const vip = segment('vip', { included: ['boss'] });
    const all = [outer, nlPro, nl, notNl, vip];

    test.each<[string, string, EvaluationContext, boolean]>([
      ['holds a user in the referenced segment', 'nl-pro', { country: 'NL', plan: 'pro' }, true],
      ['refuses a user outside the referenced segment', 'nl-pro', { country: 'BE', plan: 'pro' }, false],
      ['inverts membership when negated', 'not-nl', { country: 'BE' }, true],
      ['refuses a member when negated', 'not-nl', { country: 'NL' }, false],
      ['holds a user through two levels of references', 'outer', { country: 'NL', plan: 'pro' }, true],
      ['holds a user through a referenced included list', 'outer', { targetingKey: 'boss' }, true],
      [
        'refuses a user in none of the referenced segments',
        'outer',
        { targetingKey: 'intern', country: 'NL' },
        false,
      ],
      [
        'applies the excluded list of the referenced segment',
        'nl-pro',
        { targetingKey: 'renegade', country: 'NL', plan: 'pro' },
        false,
      ],
    ])('%s', (_name, key, context, expected) => {
      expect(member(all, key, context)).toBe(expected);
    });

    test('treats a reference to an unknown segment as "not in it", before negate', () => {
      expect(member([segment('s', { rules: [ref('ghost')] })], 's', {})).toBe(false);
      expect(member([segment('s', { rules: [ref('ghost', true)] })], 's', {})).toBe(true);
    });

    test('compiles a cycle without looping, counting the closing reference as "not in it"', () => {
      const a = segment('a', { match: 'any', rules: [ref('b'), dutch] });
      const b = segment('b', { match: 'any', rules: [ref('a'), pro] });
      const self = segment('self', { rules: [ref('self')] });
      const compiled = compileSegments([a, b, self]);
      expect(compiled.get('a')?.({ country: 'NL' }, undefined, new EvaluationPass())).toBe(true);
      expect(compiled.get('a')?.({ plan: 'pro' }, undefined, new EvaluationPass())).toBe(true);
      expect(compiled.get('b')?.({ country: 'DE' }, undefined, new EvaluationPass())).toBe(false);
      expect(compiled.get('self')?.({}, undefined, new EvaluationPass())).toBe(false);
    });
  });

  test('remembers membership within a pass and re-evaluates it in the next one', () => {
    const compiled = compileSegments([segment('nl', { rules: [dutch] })]);
    const isDutch = compiled.get('nl');
    const context: Record<string, unknown> = { country: 'NL' };
    const first = new EvaluationPass();
    expect(isDutch?.(context, undefined, first)).toBe(true);
    context.country = 'DE';
    // Within one pass the answer stands (a pass is one context, read once).
    expect(isDutch?.(context, undefined, first)).toBe(true);
    expect(isDutch?.(context, undefined, new EvaluationPass())).toBe(false);
    // Two passes in flight at once do not disturb each other.
    const a = new EvaluationPass();
    const b = new EvaluationPass();
    expect(isDutch?.({ country: 'NL' }, undefined, a)).toBe(true);
    expect(isDutch?.({ country: 'DE' }, undefined, b)).toBe(false);
  });

  test('compiles flag conditions that name segments, negated or not', () => {
    const compiled = compileSegments([segment('nl', { rules: [dutch] })]);
    expect(compileRule(ref('nl'), compiled)({ country: 'NL' }, undefined, new EvaluationPass())).toBe(true);
    expect(compileRule(ref('nl', true), compiled)({ country: 'NL' }, undefined, new EvaluationPass())).toBe(
      false,
    );
    expect(compileRule(pro, compiled)({ plan: 'pro' }, undefined, new EvaluationPass())).toBe(true);
  });

  test('compiles 1,000 chained segments without overflowing the stack', () => {
    const chain = Array.from({ length: 1000 }, (_, i) =>
      segment(`s${i}`, { rules: i === 999 ? [dutch] : [ref(`s${i + 1}`)] }),
    );
    expect(member(chain, 's0', { country: 'NL' })).toBe(true);
    expect(findSegmentCycle(chain)).toBeNull();
  });
});

describe('finding segment cycles', () => {
  test.each<[string, Segment[], string[] | null]>([
    [
      'finds no cycle among independent segments',
      [segment('a', { rules: [dutch] }), segment('b', { rules: [ref('a')] })],
      null,
    ],
    ['finds a segment that refers to itself', [segment('a', { rules: [ref('a')] })], ['a', 'a']],
    [
      'finds a cycle of two',
      [segment('a', { rules: [ref('b')] }), segment('b', { rules: [ref('a', true)] })],
      ['a', 'b', 'a'],
    ],
    [
      'finds a cycle reached through a segment outside it',
      [
        segment('entry', { rules: [ref('x')] }),
        segment('x', { rules: [ref('y')] }),
        segment('y', { rules: [ref('x')] }),
      ],
      ['x', 'y', 'x'],
    ],
    ['ignores references to unknown segments', [segment('a', { rules: [ref('ghost')] })], null],
    [
      'finds no cycle in a diamond',
      [
        segment('top', { rules: [ref('l'), ref('r')] }),
        segment('l', { rules: [ref('base')] }),
        segment('r', { rules: [ref('base')] }),
        segment('base'),
      ],
      null,
    ],
  ])('%s', (_name, segments, expected) => {
    expect(findSegmentCycle(segments)).toEqual(expected);
  });
});
