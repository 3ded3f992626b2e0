import { useState } from 'react';
import { type ApiError, type AuditEvent, api, enc, type Flag, useApi } from '../../api.ts';
import { describeFlagChange } from '../../change-words.ts';
import { ErrorSummary } from '../../kit/field.tsx';
import { useProject } from '../../project.ts';
import { can, useSession } from '../../session.ts';
import { LoadError, Loading, Time, toast } from '../../ui.tsx';
import { useReloadOnSave } from './use-flag-editor.ts';

/** The flag version an audit event's `after` holds, when it holds a whole flag. */
const versionOf = (after: unknown): number | undefined => {
  const snapshot = after as { variants?: unknown; version?: unknown } | null;
  return snapshot?.variants !== undefined && typeof snapshot.version === 'number'
    ? snapshot.version
    : undefined;
};

/** The flag's history from the audit log (admins may read it), reloaded after every save. */
export function HistorySection({
  flag,
  generation,
  onRestored,
}: {
  flag: Flag;
  generation: number;
  onRestored: (flag: Flag) => void;
}) {
  const { project, environments } = useProject();
  const { me } = useSession();
  const admin = can(me, 'admin', project);
  const [problem, setProblem] = useState<ApiError>();
  const restore = async (version: number) => {
    setProblem(undefined);
    try {
      const next = await api<Flag>('POST', `/flags/${enc(flag.id)}/restore`, { version }, flag.version);
      onRestored(next);
      toast(`Restored version ${version} as version ${next.version}.`);
    } catch (error) {
      setProblem(error as ApiError);
    }
  };
  const events = useApi<AuditEvent[]>(
    admin ? `/projects/${enc(project.id)}/audit-log?resourceId=${enc(flag.id)}&limit=50` : null,
  );
  const { reload } = events;
  useReloadOnSave(generation, reload);
  const nameOf = (key: string) => environments.find((e) => e.key === key)?.name ?? key;
  return (
    <section className="panel" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {!admin && <p className="muted">The history comes from the audit log, which admins can read.</p>}
      <ErrorSummary problem={problem} />
      {events.error && <LoadError error={events.error} retry={events.reload} />}
      {events.loading && !events.data && <Loading what="history" />}
      {events.data && (
        <ol className="history">
          {events.data.map((e) => (
            <li key={e.id}>
              <Time at={e.at} /> · <strong>{e.actor.name}</strong>{' '}
              <span className="muted">({e.actor.type === 'user' ? 'person' : 'API key'})</span>
              <div>{describeFlagChange(e.action, e.before, e.after, nameOf)}</div>
              {versionOf(e.after) !== undefined && versionOf(e.after) !== flag.version && (
                <button type="button" onClick={() => restore(versionOf(e.after) as number)}>
                  Restore this version ({versionOf(e.after)})
                </button>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
