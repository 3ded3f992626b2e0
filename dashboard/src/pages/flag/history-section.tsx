import { useState } from 'react';
import {
  type ApiError,
  type AuditEvent,
  api,
  type ChangeRequest,
  enc,
  type Flag,
  useApi,
} from '../../api.ts';
import { environmentsRestoreChanges } from '../../change-reach.ts';
import { approvalWords, describeFlagChange } from '../../change-words.ts';
import { ErrorSummary } from '../../kit/field.tsx';
import { useEnvironmentNames, useProject } from '../../project.ts';
import { confirmProtected } from '../../protected.tsx';
import { can, useSession } from '../../session.ts';
import { LoadError, Loading, Time } from '../../ui.tsx';
import { type FlagEditor, useReloadOnSave } from './use-flag-editor.ts';

/** The flag as an audit event's `after` holds it, when it holds a whole flag. */
const versionOf = (after: unknown): Flag | undefined => {
  const snapshot = after as Flag | null;
  return snapshot?.variants !== undefined && typeof snapshot.version === 'number' ? snapshot : undefined;
};

/**
 * The flag's history (GET /v1/flags/{id}/history, anyone who may read the flag: decision 1710),
 * reloaded after every save. Editors restore a version; one that reaches a protected or guarded
 * environment asks first, naming them.
 */
export function HistorySection({ editor }: { editor: FlagEditor }) {
  const { flag, generation } = editor;
  const { project, environments } = useProject();
  const { me } = useSession();
  const mayRestore = can(me, 'editor', project);
  const [problem, setProblem] = useState<ApiError>();
  const nameOf = useEnvironmentNames();
  const restore = async (version: Flag) => {
    const changed = environmentsRestoreChanges(flag, version);
    const reached = environments.filter((e) => changed.includes(e.key));
    const action = `restore version ${version.version}`;
    if (!(await confirmProtected(reached, action, can(me, 'admin', project)))) return;
    setProblem(undefined);
    try {
      const next = await api<Flag | ChangeRequest>(
        'POST',
        `/flags/${enc(flag.id)}/restore`,
        { version: version.version },
        flag.version,
      );
      editor.written(
        next,
        (restored) => `Restored version ${version.version} as version ${restored.version}.`,
        `Change request sent: restoring version ${version.version} waits for approvals.`,
      );
    } catch (error) {
      editor.refusedIn(setProblem)(error as ApiError);
    }
  };
  const events = useApi<AuditEvent[]>(`/flags/${enc(flag.id)}/history?limit=50`);
  const { reload } = events;
  useReloadOnSave(generation, reload);
  return (
    <section className="panel" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <ErrorSummary problem={problem} />
      {events.error && <LoadError error={events.error} retry={events.reload} />}
      {events.loading && !events.data && <Loading what="history" />}
      {events.data && (
        <ol className="history">
          {events.data.map((e) => {
            const version = versionOf(e.after);
            const approval = approvalWords(e.details);
            return (
              <li key={e.id} className="history-entry">
                <div>
                  <Time at={e.at} /> · <strong>{e.actor.name}</strong>{' '}
                  <span className="muted">({e.actor.type === 'user' ? 'person' : 'API key'})</span>
                  <div>{describeFlagChange(e.action, e.before, e.after, nameOf)}</div>
                  {approval && <div className="muted">{approval}</div>}
                </div>
                {mayRestore && version !== undefined && version.version !== flag.version && (
                  <button type="button" className="btn" onClick={() => restore(version)}>
                    Restore this version ({version.version})
                  </button>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
