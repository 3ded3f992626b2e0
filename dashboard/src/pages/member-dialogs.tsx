import type { ReactNode } from 'react';
import { ROLES } from '../../../src/domain/api-key.ts';
import { type Account, api, type CreatedInvitation, enc, type Project, type Role } from '../api.ts';
import type { Submission } from '../kit/api-form.tsx';
import { CreateDialog, useForm } from '../kit/dialogs.tsx';
import { type FieldSource, SelectField, TextField } from '../kit/field.tsx';
import { useSession } from '../session.ts';
import { ROLE_HELP } from '../ui.tsx';

/** An account's or invitation's role and projects, as the form holds them: '' for every project. */
interface RoleAndScope {
  readonly role: Role;
  readonly project: string;
}

/** The role and projects as the API takes them: null for every project. */
const roleAndScopeBody = ({ role, project }: RoleAndScope) => ({ role, project: project || null });

/** A person's roles: evaluator is for API keys alone. */
const PERSON_ROLES = ROLES.filter((r) => r !== 'evaluator');

/** What both dialogs are given: the projects to choose from, and what closing without saving does. */
interface DialogProps {
  readonly projects: readonly Project[];
  readonly onCancel: () => void;
}

/** Invites someone by email, with a role and projects; the page shows the link to send. */
export function InviteDialog({
  onInvited,
  ...dialog
}: DialogProps & { onInvited: (invitation: CreatedInvitation) => void }) {
  const { me } = useSession();
  const form = useForm({ email: '', role: 'editor' as Role, project: me.actor.projectId ?? '' });
  const submit = () =>
    form.run(async () =>
      onInvited(
        await api<CreatedInvitation>('POST', '/invitations', {
          email: form.values.email,
          ...roleAndScopeBody(form.values),
        }),
      ),
    );
  return (
    <RoleDialog
      {...dialog}
      title="Invite someone"
      submitLabel="Create invitation link"
      form={form}
      onSubmit={submit}
    >
      <TextField of={form} name="email" label="Email" type="email" />
    </RoleDialog>
  );
}

/** Changes an account's role and projects, against the version the admin saw. */
export function EditAccountDialog({
  account,
  onSaved,
  ...dialog
}: DialogProps & { account: Account; onSaved: (account: Account) => void }) {
  const form = useForm<RoleAndScope>({ role: account.role, project: account.projectId ?? '' });
  const path = `/accounts/${enc(account.id)}`;
  const submit = () =>
    form.run(async () =>
      onSaved(await api<Account>('PATCH', path, roleAndScopeBody(form.values), account.version)),
    );
  const intro = (
    <p className="muted">
      {account.email} acts with the new role from the next thing they do; nobody needs to sign in again.
    </p>
  );
  return (
    <RoleDialog
      {...dialog}
      title={`Change the role of ${account.name}`}
      submitLabel="Save role"
      intro={intro}
      form={form}
      onSubmit={submit}
    />
  );
}

/**
 * The dialog that gives someone a role and projects: `intro` above, `children` (an invitation's
 * email) on the row before the role and projects; the rest is the CreateDialog's.
 */
function RoleDialog<T extends RoleAndScope>({
  intro,
  form,
  projects,
  children,
  ...dialog
}: DialogProps & {
  title: string;
  submitLabel: string;
  intro?: ReactNode;
  form: FieldSource<T> & Submission;
  onSubmit: () => void;
  children?: ReactNode;
}) {
  return (
    <CreateDialog {...dialog} form={form} wide>
      {intro}
      <div className="row">
        {children}
        <RoleAndScopeFields of={form} projects={projects} />
      </div>
    </CreateDialog>
  );
}

/** Role and projects of an account or invitation: a project admin's choices stay in their project. */
function RoleAndScopeFields<T extends RoleAndScope>({
  of,
  projects,
}: {
  of: FieldSource<T>;
  projects: readonly Project[];
}) {
  const { me } = useSession();
  const organisation = me.actor.projectId === null;
  // Only `role` and `project` are read and written, which every such T has.
  const fields = of as unknown as FieldSource<RoleAndScope>;
  const scopes = [
    ...(organisation ? [['', 'All projects'] as const] : []),
    ...projects.map((p) => [p.id, `Only ${p.name}`] as const),
  ];
  return (
    <>
      <SelectField
        of={fields}
        name="role"
        label="Role"
        hint={ROLE_HELP[fields.values.role]}
        choices={PERSON_ROLES}
      />
      <SelectField of={fields} name="project" label="Projects" choices={scopes} disabled={!organisation} />
    </>
  );
}
