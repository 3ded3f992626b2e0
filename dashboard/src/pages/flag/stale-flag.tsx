import { confirm } from '../../kit/dialogs.tsx';

// A write refused because someone else saved the flag since this page loaded it (412): the page
// asks in a dialog (on screen and focused wherever the person is) and keeps their edits until
// they choose; declined, a notice stays beside Save (decision 1813).

/** True when the person chooses to reload the other version (discarding their edits, if any). */
export const askToReload = (edited: boolean): Promise<boolean> =>
  confirm({
    title: 'Someone else changed this flag',
    body: edited ? (
      <p>
        They saved a newer version since you opened this page, so <strong>your changes were not saved</strong>
        . Your edits are still here. Reload the other version to see what they changed (your edits are
        discarded), or keep your edits for now, to note them before you reload.
      </p>
    ) : (
      <p>
        They saved a newer version since you opened this page, so nothing was changed. Reload the other
        version, then try again.
      </p>
    ),
    confirmLabel: 'Reload the other version',
    cancelLabel: edited ? 'Keep my edits' : 'Not now',
    danger: edited,
  });

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
