import { type CodeReference, enc, type Flag, type Loaded, useApi } from '../../api.ts';
import { useProject } from '../../project.ts';

/** The flag's code references, loaded once for the page: its section lists them, its delete warns of them. */
export function useCodeReferences(flag: Flag): Loaded<CodeReference[]> {
  const { project } = useProject();
  return useApi<CodeReference[]>(`/projects/${enc(project.id)}/code-references?flag=${enc(flag.key)}`);
}

/** `repository@branch` → its references, in the order the API gives them. */
const byBranch = (references: readonly CodeReference[]) =>
  Map.groupBy(references, (reference) => `${reference.repository}@${reference.branch}`);

/**
 * Where code names the flag, per repository and branch, each line a link to it when the report
 * gave a URL template (issue 39). An archived flag still in code is said plainly: deleting it
 * breaks that code. A flag no code names is safe to remove.
 */
export function CodeReferencesSection({
  flag,
  references,
}: {
  flag: Flag;
  references: Loaded<CodeReference[]>;
}) {
  const found = references.data;
  return (
    <section className="panel" aria-labelledby="code-references-title">
      <h2 id="code-references-title">Code references</h2>
      {references.error && <p role="alert">Code references could not be loaded.</p>}
      {found && found.length === 0 && (
        <p className="muted">No code references: safe to remove, as far as the reported repositories show.</p>
      )}
      {found && found.length > 0 && flag.archived && (
        <p className="notice" role="status">
          This flag is archived, but code still reads it in {found.length}{' '}
          {found.length === 1 ? 'place' : 'places'}: remove those before deleting it.
        </p>
      )}
      {found &&
        [...byBranch(found)].map(([branch, lines]) => (
          <div key={branch}>
            <h3 className="small">
              <code>{branch}</code> · {lines.length} {lines.length === 1 ? 'reference' : 'references'}
            </h3>
            <ul className="code-references">
              {lines.map((reference) => (
                <li key={`${reference.path}:${reference.line}`}>
                  {reference.url === null ? (
                    <code>
                      {reference.path}:{reference.line}
                    </code>
                  ) : (
                    <a href={reference.url} target="_blank" rel="noreferrer">
                      <code>
                        {reference.path}:{reference.line}
                      </code>
                    </a>
                  )}
                  <pre className="code-context">{reference.context.join('\n')}</pre>
                </li>
              ))}
            </ul>
          </div>
        ))}
    </section>
  );
}
