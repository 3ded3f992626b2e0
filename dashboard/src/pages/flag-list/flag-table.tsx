import type { ReactNode } from 'react';
import {
  type ApiError,
  api,
  type ChangeRequest,
  type Environment,
  enc,
  type Flag,
  type FlagSummary,
  isChangeRequest,
  type Loaded,
  type Page,
} from '../../api.ts';
import { counted } from '../../kit/counted.ts';
import { type Column, itemsOf, ResourceTable } from '../../kit/resource-table.tsx';
import { useProject } from '../../project.ts';
import { confirmProtected } from '../../protected.tsx';
import { Link } from '../../router.tsx';
import { can, useSession } from '../../session.ts';
import { Switch, Time, toast } from '../../ui.tsx';

/** The latest of some evaluation times (null: none). */
const latest = (times: readonly (string | null | undefined)[]): string | null =>
  times.reduce<string | null>((last, t) => (t && (last === null || t > last) ? t : last), null);

/** A page of flags as a table: a switch per environment shown, staleness, last evaluation. */
export function FlagTable({
  list,
  shown,
  empty,
}: {
  list: Loaded<Page<FlagSummary>>;
  /** The environments whose switches the table shows. */
  shown: readonly Environment[];
  empty: ReactNode;
}) {
  const { project } = useProject();
  const { me } = useSession();
  const toggle = useFlagSwitch(list);
  const mayEdit = can(me, 'editor', project);
  const environmentColumn = (e: Environment): Column<FlagSummary> => ({
    label: e.name,
    header: (
      <>
        {e.name}
        {e.protected && (
          <span className="badge protected" title="Protected: switches ask first">
            protected
          </span>
        )}
      </>
    ),
    cell: (flag) => (
      <Switch
        checked={flag.environments[e.key]?.enabled ?? false}
        label={`${flag.name} in ${e.name}`}
        disabled={!mayEdit || flag.archived}
        onChange={(on) => toggle(flag, e, on)}
      />
    ),
  });
  return (
    <ResourceTable
      caption="Flags"
      of={itemsOf(list)}
      empty={empty}
      columns={[
        { header: 'Flag', cell: (flag) => <FlagName flag={flag} /> },
        { header: 'Type', className: 'hide-narrow', cell: (flag) => flag.type },
        ...shown.map(environmentColumn),
        {
          header: 'Last evaluated',
          className: 'hide-narrow',
          cell: (flag) => (
            <Time at={latest(shown.map((e) => flag.environments[e.key]?.lastEvaluatedAt))} never="Never" />
          ),
        },
        { header: 'Updated', className: 'hide-narrow', cell: (flag) => <Time at={flag.updatedAt} /> },
      ]}
    />
  );
}

/** The flag's name (a link to it), its stale badge, key and tags. */
function FlagName({ flag }: { flag: FlagSummary }) {
  const { project } = useProject();
  return (
    <>
      <Link to={`/projects/${enc(project.key)}/flags/${enc(flag.key)}`} className="strong">
        {flag.name}
      </Link>
      {flag.stale && (
        <span className="badge stale" title={flag.stale.detail}>
          stale<span className="visually-hidden">: {flag.stale.detail}</span>
        </span>
      )}
      {flag.stale && (
        <span className="muted small">
          {' '}
          {flag.codeReferences === 0
            ? 'no code references: safe to remove'
            : `${flag.codeReferences} code ${flag.codeReferences === 1 ? 'reference' : 'references'}`}
        </span>
      )}
      <div className="muted small">
        <code>{flag.key}</code>
        {flag.tags.map((t) => (
          <span key={t} className="tag">
            {t}
          </span>
        ))}
      </div>
    </>
  );
}

/**
 * Switching a flag on or off in one environment from the list: shown at once, asked first in a
 * protected environment, and undone (by reloading the page) when the API refuses or asks approvals.
 */
function useFlagSwitch(list: Loaded<Page<FlagSummary>>) {
  const { project } = useProject();
  const { me } = useSession();
  return async (flag: FlagSummary, environment: Environment, enabled: boolean) => {
    const action = `switch ${flag.name} ${enabled ? 'on' : 'off'}`;
    if (!(await confirmProtected([environment], action, can(me, 'admin', project)))) return;
    const page = list.data;
    if (page) {
      const switched = (f: FlagSummary): FlagSummary => ({
        ...f,
        environments: {
          ...f.environments,
          [environment.key]: { lastEvaluatedAt: null, ...f.environments[environment.key], enabled },
        },
      });
      list.setData({ ...page, items: page.items.map((f) => (f.id === flag.id ? switched(f) : f)) });
    }
    try {
      const answer = await api<Flag | ChangeRequest>(
        'PATCH',
        `/flags/${enc(flag.id)}?environment=${enc(environment.key)}`,
        { enabled },
      );
      if (isChangeRequest(answer)) {
        // Nothing changed yet: the switch waits for approvals.
        toast(
          `Change request sent: ${environment.key} needs ${counted(answer.requiredApprovals, 'approval')}.`,
        );
        list.reload();
      } else toast(`${flag.name} is ${enabled ? 'on' : 'off'} in ${environment.key}.`);
    } catch (e) {
      toast(`Could not switch ${flag.name}: ${(e as ApiError).message}`);
      list.reload();
    }
  };
}
