import { useEffect, useState } from 'react';
import { type ApiError, type AuditEvent, apiPage, enc } from '../api.ts';
import { useProject } from '../app.tsx';
import { differences } from '../change-words.ts';
import { describePath, Options } from '../kit/field.tsx';
import { TableHead } from '../kit/resource-table.tsx';
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
            <Options choices={VERBS} />
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
                <Change before={e.before} after={e.after} />
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

const shown = (value: unknown) =>
  value === undefined ? <span className="muted">—</span> : <pre>{JSON.stringify(value, null, 2)}</pre>;

/** What an event changed: only the fields that differ, each with its value before and after. */
function Change({ before, after }: { before: unknown; after: unknown }) {
  // A creation or deletion has one side only: that document is the change.
  if (before === null || after === null)
    return (
      <div className="diff">
        <h3 className="diff-title">{before === null ? 'Created as' : 'Deleted; it was'}</h3>
        {shown(before ?? after)}
      </div>
    );
  const changed = differences(before, after);
  if (changed.length === 0) return <p className="muted">Nothing but the version changed.</p>;
  return (
    <table className="changes">
      <TableHead headers={['Field', 'Before', 'After']} />
      <tbody>
        {changed.map((d) => (
          <tr key={d.path}>
            <th scope="row">{describePath(d.path.replace(/~1/g, '/').replace(/~0/g, '~'))}</th>
            <td>{shown(d.before)}</td>
            <td>{shown(d.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
