import { describe, expect, it } from 'vitest';
import type { Flag } from '../../src/domain/flag.ts';
import { ProjectEnvironments, withFlag } from '../../src/evaluation/compile-environment.ts';
import { buildFlag, buildFlagEnvironment } from '../support/builders.ts';

// A project's environments compile on first use (decision 2000): a node is ready once it has
// read its flags, and an environment compiled after a write serves that write.

const NOW = 1_750_000_000;
const on = (key: string, enabled: boolean): Flag =>
  buildFlag(key, {
    environments: {
      production: buildFlagEnvironment({ enabled }),
      staging: buildFlagEnvironment({ enabled }),
    },
  });
const served = (environments: ProjectEnvironments, environment: string, key: string) =>
  environments.get(environment)?.evaluate(key, {}, NOW)?.variant;

describe('ProjectEnvironments', () => {
  it('reads the flags only when an environment is first used, and once', () => {
    let reads = 0;
    const environments = new ProjectEnvironments(['production', 'staging'], () => {
      reads++;
      return [on('a', true)];
    }, []);
    expect(reads).toBe(0);
    expect(environments.pending()).toEqual(['production', 'staging']);
    expect(served(environments, 'production', 'a')).toBe('on');
    expect(served(environments, 'production', 'a')).toBe('on');
    expect(reads).toBe(1);
    expect(environments.pending()).toEqual(['staging']);
    expect(environments.get('nowhere')).toBeUndefined();
  });

  it('patches the environments compiled and compiles the others from the flags after the write', () => {
    let flags = [on('a', true)];
    const before = new ProjectEnvironments(['production', 'staging'], () => flags, []);
    expect(served(before, 'production', 'a')).toBe('on');
    const written = on('a', false);
    flags = [written];
    const after = before.with(
      (compiled) => withFlag(compiled, written),
      () => flags,
    );
    expect(after.pending()).toEqual(['staging']);
    expect(served(after, 'production', 'a')).toBe('off');
    expect(served(after, 'staging', 'a')).toBe('off');
    // The snapshot before the write still serves what it served.
    expect(served(before, 'production', 'a')).toBe('on');
  });

  it('shares a written flag’s results between the environments it patches, and keeps nothing of them after', () => {
    const flags = [on('a', true)];
    const before = new ProjectEnvironments(['production', 'staging'], () => flags, []);
    served(before, 'production', 'a');
    served(before, 'staging', 'a');
    const written = on('a', false);
    const after = before.with(
      (compiled) => withFlag(compiled, written),
      () => [written],
    );
    const result = (environments: ProjectEnvironments, environment: string) =>
      environments.get(environment)?.evaluate('a', {}, NOW);
    // One result object for what both environments serve alike.
    expect(result(after, 'production')).toBe(result(after, 'staging'));
    // Its factory was dropped once the write was patched in (a node keeps the flag itself):
    // compiled again, the flag gets a factory, and results, of its own.
    const again = withFlag(after.get('production') as NonNullable<ReturnType<typeof after.get>>, written);
    expect(again.evaluate('a', {}, NOW)).toEqual(result(after, 'production'));
    expect(again.evaluate('a', {}, NOW)).not.toBe(result(after, 'production'));
  });

  it('compiles an environment a slice of flags at a time, serving it once every flag is compiled', () => {
    const flags = ['a', 'b', 'c'].map((key) => on(key, true));
    const environments = new ProjectEnvironments(['production'], () => flags, []);
    environments.compileSome('production', 2);
    expect(environments.pending()).toEqual(['production']);
    environments.compileSome('production', 2);
    expect(environments.pending()).toEqual([]);
    expect(['a', 'b', 'c'].map((key) => served(environments, 'production', key))).toEqual(['on', 'on', 'on']);
  });

  it('finishes an environment begun in the background before a write patches it, so the write is served', () => {
    let flags = ['a', 'b', 'c'].map((key) => on(key, true));
    const before = new ProjectEnvironments(['production'], () => flags, []);
    before.compileSome('production', 1);
    const written = on('c', false);
    flags = [...flags.slice(0, 2), written];
    const after = before.with(
      (compiled) => withFlag(compiled, written),
      () => flags,
    );
    expect(after.pending()).toEqual([]);
    expect(served(after, 'production', 'c')).toBe('off');
    expect(served(before, 'production', 'c')).toBe('on');
  });
});
