import { expect, it } from 'vitest';
import type { CodeReference } from '../../../src/domain/code-reference.ts';
import { CREATED, describeStoreContract, givenProject, UPDATED } from './support.ts';

const ref = (flag: string, path: string, line: number): CodeReference => ({
  flag,
  path,
  line,
  context: [`// ${flag}`, `use('${flag}')`],
});

describeStoreContract('code references', (store) => {
  it('a report replaces its repository branch whole and leaves the others; counts and lists by flag', async () => {
    const { project } = await givenProject(store, 'shop');
    const report = (branch: string, references: CodeReference[], urlTemplate: string | null = null) => ({
      repository: 'acme/shop',
      branch,
      urlTemplate,
      references,
    });
    expect(await store.codeReferences.findCodeReport(project.id, 'acme/shop', 'main')).toBeUndefined();
    // More rows than one insert statement takes.
    const many = Array.from({ length: 1200 }, (_, i) =>
      ref('bulk', `src/f${String(i).padStart(4, '0')}.ts`, 1),
    );
    await store.codeReferences.replaceCodeReport(
      project.id,
      report('main', [ref('a', 'x.ts', 2), ...many]),
      CREATED,
    );
    await store.codeReferences.replaceCodeReport(project.id, report('dev', [ref('a', 'y.go', 7)]), CREATED);
    expect(
      (await store.codeReferences.findCodeReport(project.id, 'acme/shop', 'main'))?.references,
    ).toHaveLength(1201);
    expect(await store.codeReferences.countCodeReferences(project.id)).toEqual(
      new Map([
        ['a', 2],
        ['bulk', 1200],
      ]),
    );

    await store.codeReferences.replaceCodeReport(
      project.id,
      report('main', [ref('a', 'x.ts', 3)], 'https://git.example/{branch}/{path}#L{line}'),
      UPDATED,
    );
    expect(await store.codeReferences.findCodeReport(project.id, 'acme/shop', 'main')).toEqual(
      report('main', [ref('a', 'x.ts', 3)], 'https://git.example/{branch}/{path}#L{line}'),
    );
    expect(await store.codeReferences.listCodeReferences(project.id, 'a')).toEqual(
      [
        {
          ...ref('a', 'x.ts', 3),
          repository: 'acme/shop',
          branch: 'main',
          url: 'https://git.example/main/x.ts#L3',
          reportedAt: UPDATED,
        },
        { ...ref('a', 'y.go', 7), repository: 'acme/shop', branch: 'dev', url: null, reportedAt: CREATED },
      ].sort((x, y) => x.branch.localeCompare(y.branch)),
    );
    expect(await store.codeReferences.countCodeReferences(project.id)).toEqual(new Map([['a', 2]]));
  });
});
