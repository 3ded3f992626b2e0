import { useEffect, useState } from 'react';
import { useLeaveGuard } from '../router.tsx';

/**
 * An editor's draft of something stored (a flag, a segment), for a page with a SaveBar: it starts
 * as `initial` and again whenever what is stored changes (a save, a reload); while it differs
 * (as JSON), leaving the page asks first.
 */
export function useDraft<T>(initial: T) {
  const [draft, setDraft] = useState(initial);
  useEffect(() => setDraft(initial), [initial]);
  const dirty = JSON.stringify(draft) !== JSON.stringify(initial);
  useLeaveGuard(dirty);
  return { draft, setDraft, dirty, discard: () => setDraft(initial) };
}
