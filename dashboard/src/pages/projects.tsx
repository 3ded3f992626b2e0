import { useState } from 'react';
import { api, enc, type Project, useAll, useApi } from '../api.ts';
import { CreateDialog, OpenButton, useForm } from '../kit/dialogs.tsx';
import { DESCRIPTION_HINT, KeyAndName, TextField } from '../kit/field.tsx';
import { Link, navigate } from '../router.tsx';
import { can, useSession } from '../session.ts';
import { Empty, LoadError, Loading, PageTitle, Time, toast } from '../ui.tsx';

export function ProjectsPage() {
  const { me } = useSession();
  const projects = useAll<Project>('/projects?limit=1000');
  const [creating, setCreating] = useState(false);
  const mayCreate = can(me, 'admin');
  return (
    <>
      <PageTitle
        actions={mayCreate && <OpenButton label="New project" open={creating} setOpen={setCreating} />}
      >
        Projects
      </PageTitle>
      {creating && <CreateProject onCancel={() => setCreating(false)} />}
      {projects.error && <LoadError error={projects.error} retry={projects.reload} />}
      {projects.loading && <Loading what="projects" />}
      {projects.data?.length === 0 && (
        <Empty title="No projects yet">
          <p>A project holds flags and segments, switched per environment.</p>
        </Empty>
      )}
      {projects.data && projects.data.length > 0 && (
        <ul className="cards">
          {projects.data.map((p) => (
            <li key={p.id} className="card">
              <h2>
                <Link to={`/projects/${enc(p.key)}/flags`}>{p.name}</Link>
              </h2>
              <p>
                <code>{p.key}</code>
              </p>
              {p.description && <p className="muted">{p.description}</p>}
              <p className="muted small">
                Created <Time at={p.createdAt} />
              </p>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function CreateProject({ onCancel }: { onCancel: () => void }) {
  const form = useForm({ key: '', name: '', description: '' });
  const { key, name, description } = form.values;
  const submit = () =>
    form.run(async () => {
      const project = await api<Project>('POST', '/projects', {
        key,
        ...(name ? { name } : {}),
        ...(description ? { description } : {}),
      });
      toast(`Project ${project.name} created with development and production.`);
      void navigate(`/projects/${enc(project.key)}/flags`);
    });
  return (
    <CreateDialog what="project" form={form} onSubmit={submit} onCancel={onCancel}>
      <KeyAndName of={form} keyHint="Used in the API and in URLs." />
      <TextField of={form} name="description" label="Description" hint={DESCRIPTION_HINT} />
      <p className="muted small">
        It starts with the environments development and production; production is protected.
      </p>
    </CreateDialog>
  );
}
