import { useState } from 'react';
import { type ApiError, api, type ChangeRequest, enc, type Flag } from '../../api.ts';
import { type Reach, reachOf } from '../../change-reach.ts';
import { confirm } from '../../kit/dialogs.tsx';
import { ChoiceField } from '../../kit/field.tsx';
import { TableHead } from '../../kit/resource-table.tsx';
import { useEnvironmentNames, useProject } from '../../project.ts';
import { can, useSession } from '../../session.ts';
import { compareEnvironments, copyPatch, type SettingRow } from './environment-copy.ts';
import type { FlagEditor } from './use-flag-editor.ts';

/**
 * This flag's stored settings in two environments side by side, and copying either over the
 * other (docs/decisions/1811): one PATCH with If-Match, so a guarded target gets a change request.
 */
export function EnvironmentCompareSection({ editor }: { editor: FlagEditor }) {
  const keys = editor.environmentKeys;
  const [left, setLeft] = useState(keys[0] ?? '');
  const [right, setRight] = useState(keys[1] ?? '');
  const nameOf = useEnvironmentNames();
  if (keys.length < 2) return null;
  const rows = compareEnvironments(editor.flag, left, right);
  const differing = rows.filter((r) => !r.same).length;
  const choices = keys.map((k) => [k, nameOf(k)] as const);
  return (
    <section className="panel" aria-labelledby="compare-title">
      <h2 id="compare-title">Compare environments</h2>
      <div className="row">
        <ChoiceField
          label="Compare"
          path="/compare/Compare"
          value={left}
          choices={choices}
          onChange={setLeft}
        />
        <ChoiceField label="with" path="/compare/with" value={right} choices={choices} onChange={setRight} />
      </div>
      <p role="status">
        {left === right
          ? 'Choose two different environments.'
          : differing === 0
            ? `${nameOf(left)} and ${nameOf(right)} have the same settings.`
            : `${differing} ${differing === 1 ? 'setting differs' : 'settings differ'} (saved settings; unsaved edits are not compared).`}
      </p>
      {left !== right && (
        <>
          <SettingsTable rows={rows} headers={[nameOf(left), nameOf(right)]} />
          {editor.mayEdit && differing > 0 && (
            <CopyButtons editor={editor} pair={[left, right]} nameOf={nameOf} />
          )}
        </>
      )}
    </section>
  );
}

/** Every setting in both environments; a differing one is marked, in words too. */
function SettingsTable({ rows, headers }: { rows: readonly SettingRow[]; headers: readonly string[] }) {
  return (
    <div className="diff-box">
      <table className="diff-table settings-table stacks-on-phone">
        <caption className="visually-hidden">Settings in {headers.join(' and ')}</caption>
        <TableHead headers={['Setting', ...headers]} />
        <tbody>
          {rows.map((row) => (
            <tr key={row.setting} className={row.same ? undefined : 'differs'}>
              <th scope="row">
                {row.setting}
                {!row.same && <span className="badge">differs</span>}
              </th>
              <td data-label={headers[0]}>{row.left}</td>
              <td data-label={headers[1]}>{row.right}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Copy either environment over the other, once asked; not while the page holds unsaved edits. */
function CopyButtons({
  editor,
  pair: [left, right],
  nameOf,
}: {
  editor: FlagEditor;
  pair: readonly [string, string];
  nameOf: (key: string) => string;
}) {
  const copy = useCopy(editor, nameOf);
  return (
    <div className="form-actions">
      <button type="button" className="btn" disabled={editor.dirty} onClick={() => copy(left, right)}>
        Copy {nameOf(left)} to {nameOf(right)}
      </button>
      <button type="button" className="btn" disabled={editor.dirty} onClick={() => copy(right, left)}>
        Copy {nameOf(right)} to {nameOf(left)}
      </button>
      {editor.dirty && <span className="muted small">Save or discard your edits to copy.</span>}
    </div>
  );
}

/**
 * Asks (what changes in the target, and whether it is applied or sent for approval), then sends
 * the PATCH against the version shown; what the API refuses is the page's problem, as a save's is.
 */
function useCopy(editor: FlagEditor, nameOf: (key: string) => string) {
  const { project, environments } = useProject();
  const { me } = useSession();
  const admin = can(me, 'admin', project);
  return async (source: string, target: string) => {
    const { flag } = editor;
    const reach = reachOf(
      environments.filter((e) => e.key === target),
      admin,
    );
    const ok = await confirm({
      title: `Copy ${nameOf(source)}'s settings to ${nameOf(target)}?`,
      body: (
        <>
          <p>{reachWords(reach, nameOf(target))}</p>
          <SettingsTable
            rows={compareEnvironments(flag, target, source).filter((r) => !r.same)}
            headers={[`${nameOf(target)} now`, 'After the copy']}
          />
          {(flag.environments[source]?.prerequisites?.length ?? 0) > 0 && (
            <p className="muted">
              Prerequisite flags are checked in {nameOf(target)}: their own settings there are not copied.
            </p>
          )}
        </>
      ),
      confirmLabel: reach.request ? 'Send for approval' : `Copy to ${nameOf(target)}`,
      danger: reach.asked.length > 0 && !reach.request,
    });
    if (!ok) return;
    editor.setProblem(undefined);
    try {
      const patch = copyPatch(flag, source, target);
      const answer = await api<Flag | ChangeRequest>('PATCH', `/flags/${enc(flag.id)}`, patch, flag.version);
      editor.written(answer, () => `Copied ${nameOf(source)}'s settings to ${nameOf(target)}.`);
    } catch (error) {
      editor.setProblem(error as ApiError);
    }
  };
}

/** Where the copy lands: applied at once, or held for approvals (decision 1003). */
function reachWords(reach: Reach, target: string): string {
  if (reach.request)
    return `${target} requires approvals: the copy is sent as a change request, and nothing changes there until others approve it.`;
  if (reach.asked.length > 0)
    return `${target} is protected: applications there get these settings at once.${reach.guarded.length > 0 ? ' As an admin you apply them without the approvals others need.' : ''}`;
  return `Applications in ${target} get these settings at once.`;
}
