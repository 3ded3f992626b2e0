import { describe, expect, it } from 'vitest';
import { describeFlagChange, differences } from './change-words.ts';

const environment = (change: object = {}) => ({
  enabled: false,
  offVariant: 'off',
  defaultVariant: 'on',
  targets: [],
  rules: [],
  ...change,
});

describe('describeFlagChange', () => {
  it('says what changed in words, with the environment by name', () => {
    const before = { name: 'Banner', version: 1, environments: { production: environment() } };
    const after = {
      name: 'Banner',
      version: 2,
      environments: {
        production: environment({
          enabled: true,
          rules: [{ id: 'r', matchAll: true, serve: { variant: 'on' } }],
          defaultRollout: { weights: [] },
        }),
      },
    };
    const names = (key: string) => (key === 'production' ? 'Production' : key);
    expect(describeFlagChange('flag.updated', before, after, names)).toBe(
      'Switched on in Production; changed the rules and the default in Production',
    );
  });

  it('names the flag-wide fields and archiving', () => {
    expect(
      describeFlagChange(
        'flag.updated',
        { name: 'A', tags: [], archived: false },
        { name: 'B', tags: ['x'], archived: true },
      ),
    ).toBe('Archived the flag; changed the name and the tags');
    expect(describeFlagChange('flag.created', null, {})).toBe('Created the flag');
    expect(describeFlagChange('flag.updated', { version: 1 }, { version: 2 })).toBe('Saved without changes');
  });
});

describe('differences', () => {
  it('lists only the leaves that changed, as JSON pointers, without the version bookkeeping', () => {
    const before = {
      name: 'A',
      version: 1,
      updatedAt: 'x',
      environments: { 'a/b': { enabled: false, rules: [1, 2] } },
    };
    const after = {
      name: 'A',
      version: 2,
      updatedAt: 'y',
      environments: { 'a/b': { enabled: true, rules: [1] } },
    };
    expect(differences(before, after)).toEqual([
      { path: '/environments/a~1b/enabled', before: false, after: true },
      { path: '/environments/a~1b/rules/1', before: 2, after: undefined },
    ]);
  });

  it('treats a value that changed kind as one difference', () => {
    expect(differences({ v: [1] }, { v: 'one' })).toEqual([{ path: '/v', before: [1], after: 'one' }]);
    expect(differences(null, { a: 1 })).toEqual([{ path: '/', before: null, after: { a: 1 } }]);
  });
});
