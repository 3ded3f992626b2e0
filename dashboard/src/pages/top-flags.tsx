import { useId } from 'react';
import { enc, type TopFlagCounts, useApi } from '../api.ts';
import { primaryEnvironment } from '../primary-environment.ts';
import { useProject } from '../project.ts';
import { Link } from '../router.tsx';

const numbers = new Intl.NumberFormat('en');

/** The project's most evaluated flags in its primary environment over the last 24 hours. */
export function TopFlags() {
  const { project, environments } = useProject();
  const environment = primaryEnvironment(environments);
  const top = useApi<TopFlagCounts>(
    environment
      ? `/projects/${enc(project.id)}/insights/top-flags?environment=${enc(environment.key)}&days=1&limit=5`
      : null,
  );
  const id = useId();
  // Nothing evaluated yet (or no access): the list of flags says enough on its own.
  if (!top.data || top.data.flags.length === 0) return null;
  const most = top.data.flags[0]?.count ?? 1;
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id}>Most evaluated in {environment?.name} (24 hours)</h2>
      <ol className="top-flags">
        {top.data.flags.map((flag) => (
          <li key={flag.key}>
            <Link to={`/projects/${enc(project.key)}/flags/${enc(flag.key)}`}>
              <code>{flag.key}</code>
            </Link>
            <span className="bar" aria-hidden="true" style={{ width: `${(flag.count / most) * 100}%` }} />
            <span className="numeric">{numbers.format(flag.count)} evaluations</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
