import type { ReactNode } from 'react';

/**
 * The bar an editor shows while its draft differs from what is stored: Discard, and Save
 * (a submit button when `onSave` is left out, so the editor's form saves on Enter too). `notice`
 * replaces its words when there is more to say, where the person is looking (the bar stays on screen).
 */
export function SaveBar({
  saving,
  mayEdit,
  onDiscard,
  onSave,
  notice,
}: {
  saving: boolean;
  mayEdit: boolean;
  onDiscard: () => void;
  onSave?: () => void;
  notice?: ReactNode;
}) {
  return (
    <section className="save-bar" aria-label="Unsaved changes">
      {notice ?? <span className="save-text">You have unsaved changes.</span>}
      <button type="button" className="btn" onClick={onDiscard}>
        Discard
      </button>
      <button
        type={onSave ? 'button' : 'submit'}
        className="btn primary"
        onClick={onSave}
        disabled={saving || !mayEdit}
      >
        {saving ? 'Saving…' : 'Save changes'}
      </button>
    </section>
  );
}
