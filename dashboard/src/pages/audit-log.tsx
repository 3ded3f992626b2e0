import { type ReactNode, useState } from 'react';
import { keyOfPointerToken } from '../../../src/domain/json.ts';
import { type Account, type AuditEvent, enc, type Project, useAll, useApi, usePage } from '../api.ts';
import { differences } from '../change-words.ts';
import { describePath } from '../kit/field.tsx';
import { FilterSelect, FilterText, type QueryFilters } from '../kit/filter-controls.tsx';
import { Pager } from '../kit/pager.tsx';
import { TableHead } from '../kit/resource-table.tsx';
import { useProject } from '../project.ts';
import { Empty, LoadError, Loading, PageTitle, Time } from '../ui.tsx';
import { firstPageWith, useUrlQuery } from '../url-query.ts';
import { AccountPicker } from './account-picker.tsx';

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
  const projects = useAll<Project>('/projects?limit=1000');
  return (
    <AuditLog
      path="/audit-log"
      intro="Every change in this Flagstaff: all projects, organisation API keys and accounts."
      organisation={{ projects: projects.data ?? [] }}
    />
  );
}

/** Events a page of the log shows. */
const PAGE_SIZE = 50;

/** The log's filters and page, as its URL says (docs/decisions/1803). */
const FILTERS = ['project', 'actorId', 'resourceType', 'verb', 'resourceId'] as const;
type AuditQuery = Readonly<Record<(typeof FILTERS)[number] | 'cursor' | 'before', string>>;

const auditQueryOf = (params: URLSearchParams): AuditQuery =>
  Object.fromEntries(
    [...FILTERS, 'cursor', 'before'].map((name) => [name, params.get(name)?.trim() ?? '']),
  ) as AuditQuery;

/** The one request of a page of the log. */
function auditPath(path: string, query: AuditQuery): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (query.project) params.set('project', query.project);
  if (query.actorId) params.set('actorId', query.actorId);
  if (query.resourceType) params.set('resourceType', query.resourceType);
  if (query.resourceType && query.verb) params.set('action', `${query.resourceType}.${query.verb}`);
  if (query.resourceId) params.set('resourceId', query.resourceId);
  if (query.cursor) params.set('cursor', query.cursor);
  else if (query.before) params.set('before', query.before);
  return `${path}?${params}`;
}

/** What the organisation-wide log spans besides one project's: every project. */
interface Organisation {
  readonly projects: readonly Project[];
}

/** Who changed what, newest first, a page at a time, with filters; organisation-wide, filter by project. */
function AuditLog({
  path,
  intro,
  organisation,
}: {
  path: string;
  intro: ReactNode;
  organisation?: Organisation;
}) {
  const { params, change } = useUrlQuery();
  const query = auditQueryOf(params);
  const events = usePage<AuditEvent>(auditPath(path, query));
  const projectName = (id: string | null | undefined) =>
    id ? (organisation?.projects.find((p) => p.id === id)?.name ?? 'a deleted project') : 'Organisation';
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p className="muted">{intro}</p>
      <AuditFilters
        query={query}
        onChange={(changes, options) => change(firstPageWith(changes), options)}
        organisation={organisation}
        actorName={events.data?.items.find((e) => e.actor.id === query.actorId)?.actor.name}
      />
      {events.error && <LoadError error={events.error} retry={events.reload} />}
      {!events.data && !events.error && <Loading what="the audit log" />}
      {events.data?.items.length === 0 && <Empty title="Nothing recorded matches" />}
      {events.data && events.data.items.length > 0 && (
        <ol className="audit">
          {events.data.items.map((e) => (
            <AuditEventItem key={e.id} event={e} project={organisation && projectName(e.projectId)} />
          ))}
        </ol>
      )}
      <Pager page={events.data} what="events" />
    </>
  );
}

/** A select's choices of records that have ids and names (projects). */
const byId = (records: readonly { id: string; name: string }[]) =>
  records.map((r) => [r.id, r.name] as const);

const RESOURCE_CHOICES = Object.keys(ACTIONS).map((t) => [t, words(t)] as const);

/** Project and who (organisation-wide), resource, action and resource id: each a parameter of the URL. */
function AuditFilters({
  organisation,
  actorName,
  ...filters
}: QueryFilters<AuditQuery> & { organisation?: Organisation; actorName: string | undefined }) {
  const verbs = ACTIONS[filters.query.resourceType] ?? [];
  return (
    <search className="filters" aria-label="Filter the audit log">
      {organisation && <OrganisationFilters of={filters} organisation={organisation} actorName={actorName} />}
      <FilterSelect
        of={filters}
        name="resourceType"
        label="Resource"
        any="Any resource"
        choices={RESOURCE_CHOICES}
        clears={['verb']}
      />
      <FilterSelect
        of={filters}
        name="verb"
        label="Action"
        any="Any action"
        choices={verbs.map((v) => [v, words(v)] as const)}
        disabled={!filters.query.resourceType}
      />
      <FilterText
        of={filters}
        name="resourceId"
        label="Resource id or key"
        placeholder="new-checkout or flg_…"
        spellCheck={false}
      />
    </search>
  );
}

/**
 * Organisation-wide only: which project, and who. Who is chosen by searching the accounts, however
 * many there are (docs/decisions/1846); the URL keeps the account's id, and the field shows the
 * email chosen here, or else the name the log's events give it, or else the id.
 */
function OrganisationFilters({
  of,
  organisation: { projects },
  actorName,
}: {
  of: QueryFilters<AuditQuery>;
  organisation: Organisation;
  actorName: string | undefined;
}) {
  const [chosen, setChosen] = useState<Account>();
  const { actorId } = of.query;
  const who = !actorId ? '' : chosen?.id === actorId ? chosen.email : (actorName ?? actorId);
  return (
    <>
      <FilterSelect of={of} name="project" label="Project" any="Any project" choices={byId(projects)} />
      <AccountPicker
        label="Who"
        path="actorId"
        value={who}
        onChoose={(account) => {
          setChosen(account);
          of.onChange({ actorId: account.id });
        }}
      />
      {actorId && (
        <button type="button" className="btn subtle" onClick={() => of.onChange({ actorId: null })}>
          Anyone<span className="visually-hidden"> (clear who)</span>
        </button>
      )}
    </>
  );
}

/** One event: when, who, what and on which resource; the change itself behind a disclosure. */
function AuditEventItem({ event: e, project }: { event: AuditEvent; project: string | undefined }) {
  return (
    <li className="audit-event">
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
        {project !== undefined && <span className="muted">{project}</span>}
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
    <table className="changes stacks-on-phone">
      <TableHead headers={['Field', 'Before', 'After']} />
      <tbody>
        {changed.map((d) => (
          <tr key={d.path}>
            <th scope="row">{describePath(keyOfPointerToken(d.path))}</th>
            <td data-label="Before">{shown(d.before)}</td>
            <td data-label="After">{shown(d.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
