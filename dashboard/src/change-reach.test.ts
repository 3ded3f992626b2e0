import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/domain/project.ts';
import { environmentsRestoreChanges, reachOf, variantsReachEveryEnvironment } from './change-reach.ts';

const environment = (key: string, guard: { protected?: boolean; requiredApprovals?: number } = {}) =>
  ({
    id: `env_${key}`,
    key,
    name: key,
    protected: guard.protected ?? false,
    requiredApprovals: guard.requiredApprovals ?? 0,
  }) as Environment;

const development = environment('development');
const staging = environment('staging', { requiredApprovals: 2 });
const production = environment('production', { protected: true, requiredApprovals: 1 });
const keys = (list: readonly Environment[]) => list.map((e) => e.key);

describe('reachOf', () => {
  it('asks for protected and guarded environments only', () => {
    expect(keys(reachOf([development, staging, production], true).asked)).toEqual(['staging', 'production']);
    expect(reachOf([development], false).asked).toEqual([]);
  });

  it("makes an editor's change to a guarded environment a request, and an admin's a write", () => {
    expect(reachOf([development, production], false)).toMatchObject({ request: true });
    expect(keys(reachOf([development, production], false).guarded)).toEqual(['production']);
    expect(reachOf([development, production], true).request).toBe(false);
    expect(reachOf([development, environment('prod', { protected: true })], false).request).toBe(false);
  });
});

describe('environmentsRestoreChanges', () => {
  const config = (enabled: boolean) => ({ enabled, offVariant: 'off', defaultVariant: 'on', rules: [] });
  const variants = [
    { key: 'on', value: true },
    { key: 'off', value: false },
  ];
  const current = {
    variants,
    environments: { development: config(true), production: config(true), staging: config(false) },
  };

  it('names the environments whose configuration the version differs in', () => {
    const version = { variants, environments: { development: config(true), production: config(false) } };
    expect(environmentsRestoreChanges(current, version)).toEqual(['production']);
  });

  it('leaves out environments the version did not have, as the restore keeps them', () => {
    const version = { variants, environments: { development: config(true), production: config(true) } };
    expect(environmentsRestoreChanges(current, version)).toEqual([]);
  });

  it('names every environment when the variants differ, since each serves them', () => {
    const version = {
      variants: [{ key: 'on', value: false }, variants[1]],
      environments: { development: config(true), production: config(true) },
    };
    expect(environmentsRestoreChanges(current, version)).toEqual(['development', 'production', 'staging']);
  });
});

describe('variantsReachEveryEnvironment', () => {
  const stored = [
    { key: 'on', value: 'blue' },
    { key: 'off', value: 'grey' },
  ];
  it('is true when a value changes or a variant goes, and false when one is only added', () => {
    expect(variantsReachEveryEnvironment(stored, [{ key: 'on', value: 'red' }, stored[1]])).toBe(true);
    expect(variantsReachEveryEnvironment(stored, [stored[0]])).toBe(true);
    expect(variantsReachEveryEnvironment(stored, [...stored, { key: 'new', value: 'green' }])).toBe(false);
    expect(variantsReachEveryEnvironment(stored, undefined)).toBe(false);
  });
});
