import { describe, expect, it } from 'vitest';
import { askedWords, CONFLICT_HELP, experimentOf, requestActions, type Viewer } from './request-words.ts';

const reviewer: Viewer = { mine: false, approvedByMe: false, editor: true, admin: false };
const open = { status: 'open' as const, approvals: [], requiredApprovals: 1 };
const verbs = (actions: ReturnType<typeof requestActions>) => actions.map((a) => a.verb);

describe('requestActions', () => {
  it('lets another editor approve or reject, and the author only withdraw', () => {
    expect(verbs(requestActions(open, reviewer))).toEqual(['approve', 'reject']);
    expect(verbs(requestActions(open, { ...reviewer, mine: true }))).toEqual(['withdraw']);
  });

  it('offers an admin to apply without the approvals, and an editor once they are complete', () => {
    const admin = requestActions(open, { ...reviewer, admin: true });
    expect(admin.find((a) => a.verb === 'apply')?.label).toBe('Apply without approvals (admin)');
    const approved = {
      ...open,
      approvals: [{ by: { type: 'user', id: 'a', name: 'A' }, at: '', comment: '' }],
    };
    const editor = requestActions(approved as never, { ...reviewer, approvedByMe: true });
    expect(editor.find((a) => a.verb === 'apply')?.label).toBe('Apply');
  });

  it('keeps Approve and Apply of a conflicted request disabled, with the reason, and Reject and Withdraw working', () => {
    const actions = requestActions({ ...open, status: 'conflicted' }, { ...reviewer, admin: true });
    expect(verbs(actions)).toEqual(['approve', 'reject', 'withdraw', 'apply']);
    expect(actions.filter((a) => a.disabledBecause === CONFLICT_HELP).map((a) => a.verb)).toEqual([
      'approve',
      'apply',
    ]);
  });

  it('offers nothing once a request is decided', () => {
    expect(requestActions({ ...open, status: 'applied' }, { ...reviewer, admin: true })).toEqual([]);
  });
});

describe('askedWords', () => {
  it('says what kind of write the request holds back', () => {
    expect(askedWords({ kind: 'flag.patch', patch: {} })).toBe('change');
    expect(askedWords({ kind: 'flag.restore', patch: { version: 3 } })).toBe('restore version 3 of');
    expect(askedWords({ kind: 'flag.delete', patch: {} })).toBe('delete');
    const start = { kind: 'experiment.start' as const, patch: { experiment: 'new-checkout' } };
    expect(askedWords(start)).toBe('start the experiment');
    expect(experimentOf(start)).toBe('new-checkout');
    expect(experimentOf({ kind: 'flag.patch', patch: {} })).toBeUndefined();
  });
});
