import { useEffect, useState } from 'react';
import { type ApiError, type AuditEvent, apiPage, enc } from '../api.ts';
import { useProject } from '../app.tsx';
import { Empty, LoadError, Loading, PageTitle, Time } from '../ui.tsx';

const RESOURCE_TYPES = ['flag', 'segment', 'environment', 'project', 'api_key', 'invitation', 'account'];
const VERBS = ['created', 'updated', 'deleted', 'revoked'];

/** Who changed what, newest first, with filters and the change itself. */
export function AuditLogPage() {
  const { project } = useProject();
  const [resourceType, setResourceType] = useState('');
  const [verb, setVerb] = useState('');
  const [resourceId, setResourceId] = useState('');
  const [events, setEvents] = useState<AuditEvent[]>();
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<ApiError>();
  const [loadingMore, setLoadingMore] = useState(false);

  const first = (() => {
    const query = new URLSearchParams({ limit: '50' });
    if (resourceType) query.set('resourceType', resourceType);
    if (resourceType && verb) query.set('action', `${resourceType}.${verb}`);
    if (resourceId.trim()) query.set('resourceId', resourceId.trim());
    return `/projects/${enc(project.id)}/audit-log?${query}`;
  })();

  useEffect(() => {
    let current = true;
    setEvents(undefined);
    apiPage<AuditEvent>(first).then(
      (page) => {
        if (!current) return;
        setEvents(page.items);
        setNext(page.next);
        setError(undefined);
      },
      (e: ApiError) => current && setError(e),
    );
    return () => {
      current = false;
    };
  }, [first]);

  const more = async () => {
    if (!next) return;
    setLoadingMore(true);
    try {
      const page = await apiPage<AuditEvent>(next);
      setEvents((e) => [...(e ?? []), ...page.items]);
      setNext(page.next);
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setLoadingMore(false);
    }
  };

  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p className="muted">Every change to {project.name}, who made it and what it was.</p>
      <search className="filters" aria-label="Filter the audit log">
        <label className="field inline">
          <span>Resource</span>
          <select value={resourceType} onChange={(e) => setResourceType(e.target.value)}>
            <option value="">Any resource</option>
            {RESOURCE_TYPES.map((t) => (
              <option key={t} value={t}>
                {t.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label className="field inline">
          <span>Action</span>
          <select value={verb} onChange={(e) => setVerb(e.target.value)} disabled={!resourceType}>
            <option value="">Any action</option>
            {VERBS.map((v) => (
              <option key={v}>{v}</option>
            ))}
          </select>
        </label>
        <label className="field inline">
          <span>Resource id</span>
          <input
            value={resourceId}
            onChange={(e) => setResourceId(e.target.value)}
            placeholder="flg_…"
            spellCheck={false}
          />
        </label>
      </search>
      {error && <LoadError error={error} />}
      {!events && !error && <Loading what="the audit log" />}
      {events?.length === 0 && <Empty title="Nothing recorded matches" />}
      {events && events.length > 0 && (
        <ol className="audit">
          {events.map((e) => (
            <li key={e.id} className="audit-event">
              <div className="audit-line">
                <Time at={e.at} />
                <span>
                  <strong>{e.actor.name}</strong>{' '}
                  <span className="muted">({e.actor.type === 'user' ? 'person' : 'API key'})</span>
                </span>
                <code>{e.action}</code>
                <span>
                  {e.resource.key ?? e.resource.id}
                  {e.environment && <span className="badge">{e.environment}</span>}
                </span>
              </div>
              <details>
                <summary>Show the change</summary>
                <div className="diff">
                  <div>
                    <h3 className="diff-title">Before</h3>
                    <pre>{e.before === null ? '—' : JSON.stringify(e.before, null, 2)}</pre>
                  </div>
                  <div>
                    <h3 className="diff-title">After</h3>
                    <pre>{e.after === null ? '—' : JSON.stringify(e.after, null, 2)}</pre>
                  </div>
                </div>
              </details>
            </li>
          ))}
        </ol>
      )}
      {next && (
        <button type="button" className="btn" onClick={more} disabled={loadingMore}>
          {loadingMore ? 'Loading…' : 'Load older events'}
        </button>
      )}
    </>
  );
}
