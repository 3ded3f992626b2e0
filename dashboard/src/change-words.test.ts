import { describe, expect, it } from 'vitest';
import { approvalWords, describeFlagChange, differences } from './change-words.ts';

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

describe('approvalWords', () => {
  const ann = { type: 'user', id: 'acc_ann', name: 'Ann' };
  const bob = { type: 'api_key', id: 'key_bob', name: 'Bob' };
  const cy = { type: 'user', id: 'acc_cy', name: 'Cy' };

  it('names the author and every approver of the request a write came from', () => {
    expect(approvalWords({ changeRequest: 'chg_1', author: ann, approvedBy: [bob, cy] })).toBe(
      'asked by Ann, approved by Bob and Cy',
    );
  });

  it('says when an admin applied it without approvals, or before all were in', () => {
    expect(approvalWords({ changeRequest: 'chg_1', author: ann, approvedBy: [], approvalsBypassed: 1 })).toBe(
      'asked by Ann, applied without approvals',
    );
    expect(
      approvalWords({ changeRequest: 'chg_1', author: ann, approvedBy: [bob], approvalsBypassed: 1 }),
    ).toBe('asked by Ann, approved by Bob, applied before every approval was in');
  });

  it('says nothing for a write no request made', () => {
    expect(approvalWords(undefined)).toBeUndefined();
    expect(approvalWords({ approvalsBypassed: '--bypass-approvals' })).toBeUndefined();
  });

  it("words a request's own events in the flag's history", () => {
    expect(describeFlagChange('change_request.approved', {}, {})).toBe('Approved the change request');
  });
});
