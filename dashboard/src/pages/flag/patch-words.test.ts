import { describe, expect, it } from 'vitest';
import { changeLines, patchLines } from './patch-words.ts';

const flag = {
  name: 'Banner',
  environments: { production: { enabled: false, offVariant: 'off', rules: [] } },
};

describe('patchLines', () => {
  it('shows what top-level environment fields would change in the environment, and flag fields by name', () => {
    expect(patchLines({ enabled: true, name: 'Big banner' }, flag, 'production')).toEqual([
      { field: 'production enabled', now: 'false', next: 'true' },
      { field: 'name', now: '"Banner"', next: '"Big banner"' },
    ]);
  });

  it('reads `environments` and leaves out what would stay the same or was never there', () => {
    const patch = {
      environments: { production: { enabled: true, offVariant: 'off', rules: [], defaultRollout: null } },
    };
    expect(patchLines(patch, flag, 'development')).toEqual([
      { field: 'production enabled', now: 'false', next: 'true' },
    ]);
  });

  it('says when a field would be removed', () => {
    expect(patchLines({ offVariant: null }, flag, 'production')).toEqual([
      { field: 'production offVariant', now: '"off"', next: '(removed)' },
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
      { field: 'production enabled', now: 'false', next: 'true' },
      { field: 'name', now: '"Banner"', next: '"Big banner"' },
      { field: 'production offVariant', now: '"off"', next: '(removed)' },
      { field: 'metadata a/b', now: '—', next: '1' },
    ]);
  });
});
