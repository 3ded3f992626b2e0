import { useEffect, useRef } from 'react';
import { type AuditEvent, enc, type Flag, useApi } from '../../api.ts';
import { useProject } from '../../app.tsx';
import { describeFlagChange } from '../../change-words.ts';
import { can, useSession } from '../../session.ts';
import { LoadError, Loading, Time } from '../../ui.tsx';

/** The flag's history from the audit log (admins may read it), reloaded after every save. */
export function HistorySection({ flag, generation }: { flag: Flag; generation: number }) {
  const { project, environments } = useProject();
  const { me } = useSession();
  const admin = can(me, 'admin', project);
  const events = useApi<AuditEvent[]>(
    admin ? `/projects/${enc(project.id)}/audit-log?resourceId=${enc(flag.id)}&limit=50` : null,
  );
  const { reload } = events;
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else if (generation > 0) reload();
  }, [generation, reload]);
  const nameOf = (key: string) => environments.find((e) => e.key === key)?.name ?? key;
  return (
    <section className="panel" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {!admin && <p className="muted">The history comes from the audit log, which admins can read.</p>}
      {events.error && <LoadError error={events.error} retry={events.reload} />}
      {events.loading && !events.data && <Loading what="history" />}
      {events.data && (
        <ol className="history">
          {events.data.map((e) => (
            <li key={e.id}>
              <Time at={e.at} /> · <strong>{e.actor.name}</strong>{' '}
              <span className="muted">({e.actor.type === 'user' ? 'person' : 'API key'})</span>
              <div>{describeFlagChange(e.action, e.before, e.after, nameOf)}</div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
