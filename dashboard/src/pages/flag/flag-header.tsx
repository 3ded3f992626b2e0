import { api, type ChangeRequest, enc, type Flag } from '../../api.ts';
import { type ConfirmOptions, confirm } from '../../kit/dialogs.tsx';
import { describePath, ErrorSummary } from '../../kit/field.tsx';
import { useProject } from '../../project.ts';
import { navigate } from '../../router.tsx';
import { PageTitle, Time, toast } from '../../ui.tsx';
import { StaleNotice } from './stale-flag.tsx';
import { type FlagEditor, requestSent } from './use-flag-editor.ts';

/**
 * The flag's title, archive and delete, and what went wrong with the last save. Deleting a flag
 * that code still reads (its code references) is warned of first.
 */
export function FlagHeader({ editor, codeReferences }: { editor: FlagEditor; codeReferences: number }) {
  const { flag, dirty, mayEdit, problem } = editor;
  return (
    <>
      <PageTitle actions={mayEdit && <FlagActions editor={editor} codeReferences={codeReferences} />}>
        {flag.name} {flag.archived && <span className="badge">archived</span>}
      </PageTitle>
      <p className="muted">
        <code>{flag.key}</code> · {flag.type} flag · version {flag.version} · updated{' '}
        <Time at={flag.updatedAt} />
      </p>
      {editor.stale && !dirty && (
        <div className="notice">
          <StaleNotice edited={false} onReload={editor.reloadOtherVersion} />
        </div>
      )}
      <ErrorSummary problem={problem} describe={describePath} />
    </>
  );
}

/** An editor's Archive (or Restore) and Delete, each confirmed first; not while edits are unsaved. */
function FlagActions({ editor, codeReferences }: { editor: FlagEditor; codeReferences: number }) {
  const { project } = useProject();
  const { flag, dirty, setProblem } = editor;

  const act = async (action: () => Promise<void>) => {
    try {
      await action();
    } catch (e) {
      setProblem(e as never);
    }
  };

  const setArchived = async (archived: boolean) => {
    if (archived && !(await confirm(archiveQuestion(flag)))) return;
    await act(async () => {
      const answer = await api<Flag | ChangeRequest>(
        'PATCH',
        `/flags/${enc(flag.id)}`,
        { archived },
        flag.version,
      );
      editor.written(answer, () => (archived ? `${flag.name} archived.` : `${flag.name} restored.`));
    });
  };

  const remove = async () => {
    if (!(await confirm(deleteQuestion(flag, codeReferences)))) return;
    await act(async () => {
      // 204 when deleted; 202 with a change request when a guarded environment holds it back.
      const answer = await api<ChangeRequest | undefined>(
        'DELETE',
        `/flags/${enc(flag.id)}`,
        undefined,
        flag.version,
      );
      if (answer !== undefined) {
        toast(requestSent(answer));
        return editor.requested();
      }
      toast(`${flag.name} deleted.`);
      void navigate(`/projects/${enc(project.key)}/flags`, { replace: true });
    });
  };

  return (
    <>
      <button type="button" className="btn" onClick={() => setArchived(!flag.archived)} disabled={dirty}>
        {flag.archived ? 'Restore' : 'Archive'}
      </button>
      <button type="button" className="btn danger" onClick={remove} disabled={dirty}>
        Delete
      </button>
    </>
  );
}

const archiveQuestion = (flag: Flag): ConfirmOptions => ({
  title: `Archive ${flag.name}?`,
  body: 'Archived flags still evaluate, but leave the flag list and bulk evaluation. You can restore it later.',
  confirmLabel: 'Archive flag',
});

/** Deleting a flag, asked: first, where code still reads it. */
const deleteQuestion = (flag: Flag, codeReferences: number): ConfirmOptions => ({
  title: `Delete ${flag.name}?`,
  body: (
    <>
      {codeReferences > 0 && (
        <p className="notice" role="alert">
          Code still reads <code>{flag.key}</code> in {codeReferences}{' '}
          {codeReferences === 1 ? 'place' : 'places'} (see Code references).
        </p>
      )}
      <p>
        Applications asking for <code>{flag.key}</code> will get “flag not found” in every environment. This
        cannot be undone.
      </p>
    </>
  ),
  confirmLabel: 'Delete flag',
  danger: true,
});
