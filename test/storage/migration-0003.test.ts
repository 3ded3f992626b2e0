import { expect, it } from 'vitest';
import { markEveryoneRules } from '../../src/storage/migrations/0003-protected-environments-and-match-all.ts';
import { buildEnvironment, buildFlag, buildFlagEnvironment, buildProject } from '../support/builders.ts';
import { describeEachFreshDatabase } from '../support/database.ts';

const AT = '2026-01-01T00:00:00.000Z';

describeEachFreshDatabase('migration 0003: rules stored without segments or conditions', (opened) => {
  it('says matchAll: true on the rules that served everyone, and leaves the others alone', async () => {
    const { store, db } = opened();
    await store.insertProject(buildProject('m', { createdAt: AT, updatedAt: AT }));
    await store.insertEnvironment(
      buildEnvironment('prj_m', 'production', {
        id: 'env_m',
        name: 'Production',
        protected: true,
        createdAt: AT,
        updatedAt: AT,
      }),
    );
    const segmentRule = { id: 'r2', segments: ['beta'], conditions: [], serve: { variant: 'off' } };
    const flag = buildFlag('legacy', {
      id: 'flg_m',
      projectId: 'prj_m',
      createdAt: AT,
      updatedAt: AT,
      environments: {
        production: buildFlagEnvironment({
          defaultVariant: 'off',
          // As stored before matchAll existed.
          rules: [segmentRule, { id: 'r1', segments: [], conditions: [], serve: { variant: 'on' } }],
        }),
      },
    });
    await store.insertFlag(flag);

    await markEveryoneRules(db as never);

    const rules = (await store.findFlagById('flg_m'))?.environments.production?.rules;
    expect(rules).toEqual([
      segmentRule,
      { id: 'r1', matchAll: true, segments: [], conditions: [], serve: { variant: 'on' } },
    ]);
  });
});
