import { type ReactNode, useEffect, useRef, useState } from 'react';
import {
  ApiError,
  api,
  type Environment,
  enc,
  type Me,
  type Project,
  useAll,
  useApi,
  whenSignedOut,
} from './api.ts';
import { ConfirmHost, confirm } from './kit/dialogs.tsx';
import { Options } from './kit/field.tsx';
import { ApiKeysPage } from './pages/api-keys.tsx';
import { AuditLogPage, OrganisationAuditLogPage } from './pages/audit-log.tsx';
import { ChangeRequestsPage } from './pages/change-requests.tsx';
import { EnvironmentsPage } from './pages/environments.tsx';
import { ExperimentPage } from './pages/experiment.tsx';
import { ExperimentsPage } from './pages/experiments.tsx';
import { FlagPage } from './pages/flag/flag-page.tsx';
import { FlagsPage } from './pages/flags.tsx';
import { MembersPage } from './pages/members.tsx';
import { PlaygroundPage } from './pages/playground.tsx';
import { ProjectsPage } from './pages/projects.tsx';
import { SegmentPage, SegmentsPage } from './pages/segments.tsx';
import { JoinPage, ResetPasswordPage, SignInPage } from './pages/sign-in.tsx';
import { UserViewPage } from './pages/user-view.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { YourAccountPage } from './pages/your-account.tsx';
import { ProjectContext } from './project.ts';
import { Link, match, mayLeave, navigate, setLeaveConfirmation, useLocation } from './router.tsx';
import { can, SessionContext, useSession } from './session.ts';
import { LoadError, Loading, Toasts } from './ui.tsx';

/** The pages that make or restore an account, shown before anyone is signed in. */
const ACCOUNT_PAGES = /^\/(?:setup|join|reset-password)(?:[/?]|$)/;

/** Signed in or not, then the page the address names. */
export function App() {
  const path = useLocation();
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [loadError, setLoadError] = useState<ApiError>();

  useEffect(() => {
    setLeaveConfirmation((message) =>
      confirm({
        title: 'Leave this page?',
        body: message,
        confirmLabel: 'Leave without saving',
        danger: true,
      }),
    );
    whenSignedOut(() => setMe(null));
  }, []);

  // Who is signed in, asked once a page needs it: the pages that make or restore an account
  // (setup, join, reset) do not, and asking there would only log a 401 in the console.
  const probed = useRef(false);
  useEffect(() => {
    if (probed.current || me !== undefined || ACCOUNT_PAGES.test(path)) return;
    probed.current = true;
    api<Me>('GET', '/me').then(setMe, (error: ApiError) =>
      error.status === 401 ? setMe(null) : setLoadError(error),
    );
  }, [path, me]);

  const signOut = async () => {
    if (!(await mayLeave())) return;
    await api('POST', '/auth/sign-out').catch(() => {});
    setMe(null);
    void navigate('/sign-in', { replace: true, force: true });
  };

  let page: ReactNode;
  const joining = match('/join', path) ?? match('/setup', path);
  if (joining) page = <JoinPage setup={path.startsWith('/setup')} onJoined={setMe} />;
  else if (match('/reset-password', path)) page = <ResetPasswordPage onReset={setMe} />;
  else if (loadError) page = <LoadError error={loadError} retry={() => location.reload()} />;
  else if (me === undefined) page = <Loading />;
  else if (me === null) page = <SignInPage onSignedIn={setMe} />;
  else
    page = (
      <SessionContext.Provider value={{ me, signOut }}>
        <SignedIn path={path} />
      </SessionContext.Provider>
    );

  return (
    <>
      {page}
      <ConfirmHost />
      <Toasts />
    </>
  );
}

type Routes = readonly (readonly [pattern: string, render: (params: Record<string, string>) => ReactNode])[];

/** The first route whose pattern matches the path, rendered; undefined when none does. */
function route(routes: Routes, path: string): ReactNode | undefined {
  for (const [pattern, render] of routes) {
    const params = match(pattern, path);
    if (params) return render(params);
  }
  return undefined;
}

const notFound = (path: string) => (
  <LoadError error={new ApiError(404, { detail: `There is no page at ${path.split('?')[0]}.` })} />
);

const P = '/projects/:project';
const PROJECT_ROUTES: Routes = [
  [`${P}/flags`, () => <FlagsPage />],
  [`${P}/flags/:flag`, (p) => <FlagPage key={p.flag} flagKey={p.flag ?? ''} />],
  [`${P}/segments`, () => <SegmentsPage />],
  [`${P}/segments/:segment`, (p) => <SegmentPage key={p.segment} segmentKey={p.segment ?? ''} />],
  [`${P}/environments`, () => <EnvironmentsPage />],
  [`${P}/experiments`, () => <ExperimentsPage />],
  [
    `${P}/experiments/:experiment`,
    (p) => <ExperimentPage key={p.experiment} experimentKey={p.experiment ?? ''} />,
  ],
  [`${P}/playground`, () => <PlaygroundPage />],
  [`${P}/user-view`, () => <UserViewPage />],
  [`${P}/audit-log`, () => <AuditLogPage />],
  [`${P}/change-requests`, () => <ChangeRequestsPage />],
  [`${P}/settings/api-keys`, () => <ApiKeysPage />],
  [`${P}/settings/webhooks`, () => <WebhooksPage />],
];

const ORGANISATION_ROUTES: Routes = [
  ['/projects', () => <ProjectsPage />],
  ['/settings/api-keys', () => <ApiKeysPage />],
  ['/settings/members', () => <MembersPage />],
  ['/settings/account', () => <YourAccountPage />],
  ['/audit-log', () => <OrganisationAuditLogPage />],
];

function SignedIn({ path }: { path: string }) {
  const { me } = useSession();
  if (match('/sign-in', path) || match('/', path)) {
    // Someone bound to one project starts there; everyone else at the project list.
    return me.actor.projectId === null ? (
      <Redirect to="/projects" />
    ) : (
      <ProjectStart id={me.actor.projectId} />
    );
  }
  // A project's own address opens its flags, the page its navigation starts with.
  const projectRoot = match('/projects/:project', path);
  if (projectRoot !== undefined)
    return <Redirect to={`/projects/${encodeURIComponent(projectRoot.project ?? '')}/flags`} />;
  const projectKey = /^\/projects\/([^/?]+)\//.exec(path)?.[1];
  if (projectKey !== undefined)
    return <ProjectPages projectKey={decodeURIComponent(projectKey)} path={path} />;
  return <Shell>{route(ORGANISATION_ROUTES, path) ?? notFound(path)}</Shell>;
}

/** A project's flags, under the project's key: every dashboard URL names things by key. */
function ProjectStart({ id }: { id: string }) {
  const project = useApi<Project>(`/projects/${enc(id)}`);
  if (project.error) return <LoadError error={project.error} retry={project.reload} />;
  return project.data ? <Redirect to={`/projects/${enc(project.data.key)}/flags`} /> : <Loading />;
}

function Redirect({ to }: { to: string }) {
  useEffect(() => {
    void navigate(to, { replace: true });
  }, [to]);
  return null;
}

/** A project's pages share the project and its environments, loaded once. */
function ProjectPages({ projectKey, path }: { projectKey: string; path: string }) {
  const project = useApi<Project>(`/projects/${enc(projectKey)}`);
  const environments = useApi<Environment[]>(`/projects/${enc(projectKey)}/environments`);
  let content: ReactNode;
  if (project.error) content = <LoadError error={project.error} retry={project.reload} />;
  else if (environments.error) content = <LoadError error={environments.error} retry={environments.reload} />;
  else if (!project.data || !environments.data) content = <Loading />;
  else
    content = (
      <ProjectContext.Provider
        value={{
          project: project.data,
          environments: environments.data,
          reloadEnvironments: environments.reload,
        }}
      >
        {route(PROJECT_ROUTES, path) ?? notFound(path)}
      </ProjectContext.Provider>
    );
  return (
    <Shell projectKey={projectKey} project={project.data}>
      {content}
    </Shell>
  );
}

/** The frame around every signed-in page: the bar, the project's navigation, the content. */
function Shell({
  children,
  projectKey,
  project,
}: {
  children: ReactNode;
  projectKey?: string;
  project?: Project;
}) {
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <TopBar projectKey={projectKey} />
      <div className="body">
        <Sidebar projectKey={projectKey} project={project} />
        <main id="main" className="content">
          {children}
        </main>
      </div>
    </div>
  );
}

/** The bar on top: the brand, a switch between projects (for organisation-wide accounts), who is signed in. */
function TopBar({ projectKey }: { projectKey: string | undefined }) {
  const { me, signOut } = useSession();
  const projects = useAll<Project>(me.actor.projectId === null ? '/projects?limit=1000' : null);
  return (
    <header className="topbar">
      <Link to="/projects" className="brand">
        <img src="/favicon.svg" alt="" width="24" height="24" /> Flagstaff
      </Link>
      {me.actor.projectId === null && projects.data && (
        <label className="project-switcher">
          <span className="visually-hidden">Project</span>
          <select
            className="project-select"
            value={projectKey ?? ''}
            onChange={(event) =>
              void navigate(event.target.value ? `/projects/${enc(event.target.value)}/flags` : '/projects')
            }
          >
            <option value="">All projects</option>
            <Options choices={projects.data.map((p) => [p.key, p.name] as const)} />
          </select>
        </label>
      )}
      <div className="topbar-end">
        <span className="who">
          {me.actor.name} <span className="badge">{me.actor.role}</span>
        </span>
        <button type="button" className="btn subtle" onClick={signOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}

/** The main navigation: the project's pages (when in one), then the organisation's; a menu on a phone. */
function Sidebar({ projectKey, project }: { projectKey: string | undefined; project: Project | undefined }) {
  const { me } = useSession();
  const path = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the menu closes whenever the page changes
  useEffect(() => setMenuOpen(false), [path]);
  const p = projectKey ? `/projects/${enc(projectKey)}` : undefined;
  const item = (to: string, label: string, show = true) =>
    show ? <NavItem key={to} to={to} label={label} path={path} /> : null;
  const admin = project ? can(me, 'admin', project) : false;
  return (
    <nav className={`sidebar${menuOpen ? ' open' : ''}`} aria-label="Main">
      <button
        type="button"
        className="btn menu-toggle"
        aria-expanded={menuOpen}
        onClick={() => setMenuOpen(!menuOpen)}
      >
        Menu
      </button>
      <ul>
        {p && (
          <>
            <li className="nav-heading">{project?.name ?? projectKey}</li>
            {item(`${p}/flags`, 'Flags')}
            {item(`${p}/segments`, 'Segments')}
            {item(`${p}/environments`, 'Environments')}
            {item(`${p}/experiments`, 'Experiments')}
            {item(`${p}/playground`, 'Playground')}
            {item(`${p}/user-view`, 'User view')}
            {item(`${p}/change-requests`, 'Change requests')}
            {item(`${p}/audit-log`, 'Audit log', admin)}
            {item(`${p}/settings/api-keys`, 'Settings → API keys', admin)}
            {item(`${p}/settings/webhooks`, 'Settings → Webhooks', admin)}
          </>
        )}
        <li className="nav-heading">Organisation</li>
        {item('/projects', 'Projects')}
        {item('/settings/api-keys', 'Organisation API keys', can(me, 'admin'))}
        {item('/settings/members', 'Members', me.actor.role === 'admin')}
        {item('/audit-log', 'Audit log (all projects)', can(me, 'admin'))}
        {item('/settings/account', 'Your account', me.account !== null)}
      </ul>
    </nav>
  );
}

/**
 * A link of the navigation, marked current on its own pages too (a flag is under Flags); the
 * project list only on itself.
 */
function NavItem({ to, label, path }: { to: string; label: string; path: string }) {
  const here = path.split('?')[0] ?? '';
  const current = here === to || (to !== '/projects' && here.startsWith(`${to}/`));
  return (
    <li>
      <Link to={to} aria-current={current ? 'page' : undefined}>
        {label}
      </Link>
    </li>
  );
}
