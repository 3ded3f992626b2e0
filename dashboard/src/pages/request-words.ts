import type { ChangeRequest } from '../api.ts';

// What a change request says to the person looking at it, and what they may do with it.
// Pure, so it is unit-tested (request-words.test.ts); change-requests.tsx renders it.

export type Verb = 'approve' | 'reject' | 'withdraw' | 'apply';

/** Who is looking, relative to the request. */
export interface Viewer {
  readonly mine: boolean;
  readonly approvedByMe: boolean;
  readonly editor: boolean;
  readonly admin: boolean;
}

export interface RequestAction {
  readonly verb: Verb;
  readonly label: string;
  readonly primary: boolean;
  /** Why it is offered but cannot be done, shown beside it; undefined when it can. */
  readonly disabledBecause?: string;
}

/** Still waiting for a decision: open, or conflicted (it can still be rejected or withdrawn). */
export const isWaiting = (request: Pick<ChangeRequest, 'status'>): boolean =>
  request.status === 'open' || request.status === 'conflicted';

/** Why a conflicted request cannot be approved or applied, in the words shown beside its buttons. */
export const CONFLICT_HELP =
  'A later change wrote the same fields, so this request can no longer be approved or applied. Withdraw or reject it, and ask again from what is there now.';

/**
 * The buttons a person gets for a request: others approve and reject (never the author), the
 * author or an admin withdraws, an editor applies once approved and an admin at any time
 * (decision 1003). A conflicted request keeps Approve and Apply, disabled, with the reason.
 */
export function requestActions(
  request: Pick<ChangeRequest, 'status' | 'approvals' | 'requiredApprovals'>,
  viewer: Viewer,
): RequestAction[] {
  if (!isWaiting(request)) return [];
  const conflicted = request.status === 'conflicted';
  const blocked = conflicted ? { disabledBecause: CONFLICT_HELP } : {};
  const complete = request.approvals.length >= request.requiredApprovals;
  const actions: RequestAction[] = [];
  if (viewer.editor && !viewer.mine && !viewer.approvedByMe)
    actions.push({ verb: 'approve', label: 'Approve', primary: true, ...blocked });
  if (viewer.editor && !viewer.mine) actions.push({ verb: 'reject', label: 'Reject', primary: false });
  if (viewer.mine || viewer.admin) actions.push({ verb: 'withdraw', label: 'Withdraw', primary: false });
  if (viewer.admin || (viewer.editor && complete))
    actions.push({
      verb: 'apply',
      label: complete ? 'Apply' : 'Apply without approvals (admin)',
      primary: false,
      ...blocked,
    });
  return actions;
}

/** What the request asks, completing "<author> asks to …": by the kind of write it holds back. */
export function askedWords(request: Pick<ChangeRequest, 'kind' | 'patch'>): string {
  switch (request.kind) {
    case 'flag.delete':
      return 'delete';
    case 'flag.restore':
      return typeof request.patch.version === 'number'
        ? `restore version ${request.patch.version} of`
        : 'restore an earlier version of';
    case 'flag.schedule':
      return 'schedule a change to';
    case 'segment.patch':
      return 'change the segment';
    case 'segment.delete':
      return 'delete the segment';
    case 'flagd.import':
      return 'import a flagd document into';
    case 'experiment.start':
      return 'start the experiment';
    case 'experiment.stop':
      return 'stop the experiment';
    default:
      return 'change';
  }
}

/** The experiment a start or stop request names (its patch: `{ experiment: key }`); undefined for other kinds. */
export const experimentOf = (request: Pick<ChangeRequest, 'kind' | 'patch'>): string | undefined =>
  request.kind === 'experiment.start' || request.kind === 'experiment.stop'
    ? String(request.patch.experiment)
    : undefined;
