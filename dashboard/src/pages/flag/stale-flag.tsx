// A write refused because someone else saved the flag since this page loaded it (412): the page
// asks in a dialog (kit/stale-version.tsx) and keeps their edits until they choose; declined, a
// notice stays beside Save (decision 1813).

/** What stays on screen once the person chose to keep their edits: why Save will not work, and the way out. */
export function StaleNotice({ edited, onReload }: { edited: boolean; onReload: () => void }) {
  return (
    <span className="save-text stale-notice" role="status">
      <strong>Someone else saved a newer version of this flag.</strong>{' '}
      {edited
        ? 'Saving your edits will be refused: reload first (your edits are discarded).'
        : 'Reload to see it.'}{' '}
      <button type="button" className="btn" onClick={onReload}>
        Reload the other version
      </button>
    </span>
  );
}
