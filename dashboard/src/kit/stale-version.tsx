import { confirm } from './dialogs.tsx';

// A write refused because someone else saved the flag or segment since this page loaded it
// (412): the page asks in a dialog (on screen and focused wherever the person is) and keeps the
// person's edits until they choose (decision 1813). Flags and segments ask alike.

/** True when the person chooses to reload the other version (discarding their edits, if any). */
export const askToReload = (edited: boolean, what: 'flag' | 'segment' = 'flag'): Promise<boolean> =>
  confirm({
    title: `Someone else changed this ${what}`,
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
