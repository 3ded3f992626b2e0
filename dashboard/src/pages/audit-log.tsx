import { type ReactNode, useEffect, useState } from 'react';
import { keyOfPointerToken } from '../../../src/domain/json.ts';
import { type Account, type ApiError, type AuditEvent, apiPage, enc, type Project, useApi } from '../api.ts';
import { differences } from '../change-words.ts';
import { describePath, Options } from '../kit/field.tsx';
import { TableHead } from '../kit/resource-table.tsx';
import { useProject } from '../project.ts';
import { Empty, LoadError, Loading, PageTitle, Time } from '../ui.tsx';

/** The actions the log records, by resource type, for the filters. */
const ACTIONS: Readonly<Record<string, readonly string[]>> = {
  flag: [
    'created',
    'updated',
    'deleted',
    'restored',
    'change_scheduled',
    'scheduled_change_cancelled',
    'scheduled_change_failed',
  ],
  segment: ['created', 'updated', 'deleted', 'restored'],
  environment: ['created', 'updated', 'deleted'],
  project: ['created', 'updated', 'deleted'],
  change_request: ['created', 'approved', 'rejected', 'applied', 'apply_failed', 'withdrawn'],
  api_key: ['created', 'revoked'],
  webhook: ['created', 'updated', 'deleted'],
  invitation: ['created', 'deleted'],
  account: ['created', 'updated', 'deleted', 'password_changed', 'reset_link_created', 'password_reset'],
};

const words = (name: string) => name.replaceAll('_', ' ');

/** A project's audit log (its admins). */
export function AuditLogPage() {
  const { project } = useProject();
  return (
    <AuditLog
      path={`/projects/${enc(project.id)}/audit-log`}
      intro={<>Every change to {project.name}, who made it and what it was.</>}
    />
  );
}

/** The organisation's audit log: every project, organisation-wide keys and accounts (organisation admins). */
export function OrganisationAuditLogPage() {
  const projects = useApi<Project[]>('/projects?limit=1000');
  const accounts = useApi<Account[]>('/accounts?limit=1000');
  return (
    <AuditLog
      path="/audit-log"
      intro="Every change in this Flagstaff: all projects, organisation API keys and accounts."
      projects={projects.data ?? []}
      people={accounts.data ?? []}
    />
  );
}

/** Who changed what, newest first, with filters and the change itself; `projects`: organisation-wide, filter by project. */
function AuditLog({
  path,
  intro,
  projects,
  people,
}: {
  path: string;
  intro: ReactNode;
  projects?: readonly Project[];
  people?: readonly Account[];
}) {
  const [project, setProject] = useState('');
  const [actorId, setActorId] = useState('');
  const [resourceType, setResourceType] = useState('');
  const [verb, setVerb] = useState('');
  const [resourceId, setResourceId] = useState('');
  const [events, setEvents] = useState<AuditEvent[]>();
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<ApiError>();
  const [loadingMore, setLoadingMore] = useState(false);

  const first = (() => {
    const query = new URLSearchParams({ limit: '50' });
    if (project) query.set('project', project);
    if (actorId) query.set('actorId', actorId);
    if (resourceType) query.set('resourceType', resourceType);
    if (resourceType && verb) query.set('action', `${resourceType}.${verb}`);
    if (resourceId.trim()) query.set('resourceId', resourceId.trim());
    return `${path}?${query}`;
  })();
  const projectName = (id: string | null | undefined) =>
    id ? (projects?.find((p) => p.id === id)?.name ?? 'a deleted project') : 'Organisation';
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
      <p className="muted">{intro}</p>
      <search className="filters" aria-label="Filter the audit log">
        {projects && (
          <label className="field inline">
            <span>Project</span>
            <select value={project} onChange={(e) => setProject(e.target.value)}>
              <option value="">Any project</option>
              <Options choices={projects.map((p) => [p.id, p.name] as const)} />
            </select>
          </label>
        )}
        {people && (
          <label className="field inline">
            <span>Who</span>
            <select value={actorId} onChange={(e) => setActorId(e.target.value)}>
              <option value="">Anyone</option>
              <Options choices={people.map((a) => [a.id, a.name] as const)} />
            </select>
          </label>
        )}
        <label className="field inline">
          <span>Resource</span>
          <select
            value={resourceType}
            onChange={(e) => {
              setResourceType(e.target.value);
              setVerb('');
            }}
          >
            <option value="">Any resource</option>
            {Object.keys(ACTIONS).map((t) => (
              <option key={t} value={t}>
                {words(t)}
              </option>
            ))}
          </select>
        </label>
        <label className="field inline">
          <span>Action</span>
          <select value={verb} onChange={(e) => setVerb(e.target.value)} disabled={!resourceType}>
            <option value="">Any action</option>
            <Options choices={(ACTIONS[resourceType] ?? []).map((v) => [v, words(v)] as const)} />
          </select>
        </label>
        <label className="field inline">
          <span>Resource id or key</span>
          <input
            value={resourceId}
            onChange={(e) => setResourceId(e.target.value)}
            placeholder="new-checkout or flg_…"
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
                {projects && <span className="muted">{projectName(e.projectId)}</span>}
              </div>
              <details>
                <summary>Show the change</summary>
                <Change before={e.before} after={e.after} />
                {e.details && (
                  <div className="diff">
                    <h3 className="diff-title">Details</h3>
                    {shown(e.details)}
                  </div>
                )}
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
  // Some events record what happened without a document (a password changed): the line says it all.
  if (before === null && after === null)
    return <p className="muted">No document: the action is the change.</p>;
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
            <th scope="row">{describePath(keyOfPointerToken(d.path))}</th>
            <td>{shown(d.before)}</td>
            <td>{shown(d.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
