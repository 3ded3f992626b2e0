import { expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import {
  type Store,
  type StoredAccount,
  type StoredPasswordReset,
  UniqueViolation,
} from '../../../src/storage/store.ts';
import { describeEachDatabase } from '../../support/database.ts';
import {
  anAccount,
  anInvitation,
  aSession,
  CREATED,
  everyPage,
  expectLookup,
  givenProject,
  openStoreEachTest,
  SEARCHED_FLAGS,
  UPDATED,
} from './support.ts';

describeEachDatabase('Store contract: accounts, invitations and sessions', (database) => {
  let store!: Store;
  openStoreEachTest(database, (opened) => {
    store = opened;
  });

  // Accounts, invitations and sessions

  it('stores an account exactly as given and finds it by id and by email', async () => {
    const { project } = await givenProject(store, 'checkout');
    const account = anAccount({ role: 'editor', projectId: project.id, lastLoginAt: UPDATED });
    await store.insertAccount(account);

    await expectLookup(account, 'id', (id) => store.findAccountById(id), 'acc_unknown');
    await expectLookup(account, 'email', (email) => store.findAccountByEmail(email), 'nobody@example.com');
  });

  it('refuses a second account with the same email with UniqueViolation', async () => {
    const first = anAccount({ email: 'ada@example.com' });
    await store.insertAccount(first);

    await expect(store.insertAccount(anAccount({ email: 'ada@example.com' }))).rejects.toBeInstanceOf(
      UniqueViolation,
    );
    expect((await store.listAccounts({}, { limit: 10 })).items).toStrictEqual([first]);
  });

  it('lists accounts in creation order, by scope, a page at a time', async () => {
    const { project } = await givenProject(store, 'checkout');
    const organisation = [anAccount(), anAccount(), anAccount()];
    const scoped = anAccount({ projectId: project.id });
    for (const account of [organisation[0], scoped, organisation[1], organisation[2]])
      await store.insertAccount(account as StoredAccount);

    const pages = await everyPage((page) => store.listAccounts({ projectId: null }, page), 2);
    expect(pages.map((p) => p.items)).toStrictEqual([organisation.slice(0, 2), organisation.slice(2)]);
    expect((await store.listAccounts({ projectId: project.id }, { limit: 10 })).items).toStrictEqual([
      scoped,
    ]);
    expect((await store.listAccounts({}, { limit: 10 })).items).toHaveLength(4);
  });

  it.each([
    ['cHeCkOuT', ['new-Checkout', 'basket']],
    ['Ärger', ['umlauts']],
    ['%', ['a_b']],
    ['k\\s', ['plain']],
    ['AXB@', ['axb']],
  ])(
    'filters accounts of a scope by text in the email or the name (any case, wildcards literal): %j finds %j',
    async (q, emailNames) => {
      const { project } = await givenProject(store, 'checkout');
      for (const [emailName, name] of Object.entries(SEARCHED_FLAGS)) {
        await store.insertAccount(anAccount({ email: `${emailName}@example.com`, name }));
      }
      await store.insertAccount(anAccount({ name: 'Checkout Ärger% k\\s axb@', projectId: project.id }));
      const page = await store.listAccounts({ projectId: null, q }, { limit: 10, counted: true });
      const found = page.items.map((a) => a.email.replace('@example.com', ''));
      expect([found, page.total]).toEqual([emailNames, emailNames.length]);
    },
  );

  it('updates an account only when the expected version matches, never its creation time', async () => {
    const account = anAccount();
    await store.insertAccount(account);
    const next = { ...account, name: 'Ada', lastLoginAt: UPDATED, createdAt: UPDATED, version: 2 };

    expect(await store.updateAccount(next, 1)).toBe(true);
    expect(await store.updateAccount({ ...next, name: 'Stale', version: 2 }, 1)).toBe(false);
    expect(await store.updateAccount({ ...next, id: 'acc_unknown' }, 2)).toBe(false);
    expect(await store.findAccountById(account.id)).toStrictEqual({ ...next, createdAt: CREATED });
  });

  it('deletes an account with its sessions, once', async () => {
    const [gone, kept] = [anAccount(), anAccount()];
    await store.insertAccount(gone);
    await store.insertAccount(kept);
    const [goneSession, keptSession] = [aSession(gone.id), aSession(kept.id)];
    await store.insertSession(goneSession);
    await store.insertSession(keptSession);

    expect(await store.deleteAccount(gone.id)).toBe(true);
    expect(await store.deleteAccount(gone.id)).toBe(false);
    expect(await store.findAccountById(gone.id)).toBeUndefined();
    expect(await store.findSessionByHash(goneSession.tokenHash)).toBeUndefined();
    expect(await store.findSessionByHash(keptSession.tokenHash)).toStrictEqual(keptSession);
  });

  it('stores an invitation exactly as given and finds it by id and by token hash', async () => {
    const { project } = await givenProject(store, 'checkout');
    const invitation = anInvitation({ projectId: project.id });
    const setup = anInvitation({
      email: null,
      invitedBy: { type: 'system', id: 'first-start', name: 'First start' },
    });
    await store.insertInvitation(invitation);
    await store.insertInvitation(setup);

    await expectLookup(invitation, 'id', (id) => store.findInvitationById(id), 'inv_unknown');
    await expectLookup(setup, 'tokenHash', (hash) => store.findInvitationByHash(hash), 'token-of-nothing');
  });

  it('lists invitations by scope, and only the pending ones when asked', async () => {
    const { project } = await givenProject(store, 'checkout');
    const pending = anInvitation();
    const accepted = anInvitation({ acceptedAt: UPDATED });
    const expired = anInvitation({ expiresAt: CREATED });
    const scoped = anInvitation({ projectId: project.id });
    for (const invitation of [pending, accepted, expired, scoped]) await store.insertInvitation(invitation);

    const at = '2026-01-05T00:00:00.000Z';
    expect(
      (await store.listInvitations({ projectId: null, pendingAt: at }, { limit: 10 })).items,
    ).toStrictEqual([pending]);
    expect((await store.listInvitations({ projectId: project.id }, { limit: 10 })).items).toStrictEqual([
      scoped,
    ]);
    const pages = await everyPage((page) => store.listInvitations({}, page), 3);
    expect(pages.map((p) => p.items.length)).toEqual([3, 1]);
  });

  it('accepts an invitation once, even when two accept it at the same time', async () => {
    const invitation = anInvitation();
    await store.insertInvitation(invitation);

    const results = await Promise.all([
      store.acceptInvitation(invitation.id, UPDATED),
      store.acceptInvitation(invitation.id, UPDATED),
    ]);
    expect(results.sort()).toEqual([false, true]);
    expect(await store.findInvitationById(invitation.id)).toStrictEqual({
      ...invitation,
      acceptedAt: UPDATED,
    });
  });

  it('finds an account by its identity provider subject, and refuses a second account for the same subject', async () => {
    const sso = {
      issuer: 'https://id.example.com',
      subject: 'sub-1',
      roles: [{ value: 'devs', role: 'editor' as const, project: null }],
    };
    const bound = anAccount({ sso, externalId: 'ext-1', active: false });
    await store.insertAccount(bound);
    expect(await store.findAccountBySubject(sso.issuer, sso.subject)).toStrictEqual(bound);
    expect(await store.findAccountBySubject('https://other.example.com', sso.subject)).toBeUndefined();
    await expect(store.insertAccount(anAccount({ sso }))).rejects.toBeInstanceOf(UniqueViolation);
  });

  it('takes a pending sign-in once, even when two callbacks take it at the same time', async () => {
    const pending = {
      stateHash: `state-${newId('x')}`,
      browserHash: 'browser',
      nonce: 'nonce',
      codeVerifier: 'verifier',
      returnTo: '/projects',
      expiresAt: '2999-01-01T00:00:00.000Z',
    };
    await store.insertOidcSignIn(pending);
    const taken = await Promise.all([
      store.takeOidcSignIn(pending.stateHash),
      store.takeOidcSignIn(pending.stateHash),
    ]);
    expect(taken.filter((t) => t !== undefined)).toStrictEqual([pending]);
    expect(await store.takeOidcSignIn(pending.stateHash)).toBeUndefined();
  });

  it('refuses a second invitation with the same token hash, and deletes an invitation once', async () => {
    const invitation = anInvitation();
    await store.insertInvitation(invitation);
    await expect(
      store.insertInvitation(anInvitation({ tokenHash: invitation.tokenHash })),
    ).rejects.toBeInstanceOf(UniqueViolation);

    expect(await store.deleteInvitation(invitation.id)).toBe(true);
    expect(await store.deleteInvitation(invitation.id)).toBe(false);
    expect(await store.findInvitationById(invitation.id)).toBeUndefined();
  });

  it('finds a session by its token hash, deletes it once, and sweeps only the expired ones', async () => {
    const account = anAccount();
    await store.insertAccount(account);
    const expired = aSession(account.id, { expiresAt: '2026-01-02T04:00:00.000Z' });
    const live = aSession(account.id, { expiresAt: '2026-01-09T00:00:00.000Z' });
    const ended = aSession(account.id);
    for (const session of [expired, live, ended]) await store.insertSession(session);

    expect(await store.findSessionByHash(ended.tokenHash)).toStrictEqual(ended);
    expect(await store.deleteSession(ended.id)).toBe(true);
    expect(await store.deleteSession(ended.id)).toBe(false);
    await store.deleteExpiredSessions('2026-01-05T00:00:00.000Z');
    expect(await store.findSessionByHash(expired.tokenHash)).toBeUndefined();
    expect(await store.findSessionByHash(live.tokenHash)).toStrictEqual(live);
    expect(await store.findSessionByHash(ended.tokenHash)).toBeUndefined();
  });

  it("ends an account's sessions but one, and none of another account's", async () => {
    const [account, other] = [anAccount(), anAccount()];
    await store.insertAccount(account);
    await store.insertAccount(other);
    const [keep, end1, end2, others] = [
      aSession(account.id),
      aSession(account.id),
      aSession(account.id),
      aSession(other.id),
    ];
    for (const session of [keep, end1, end2, others]) await store.insertSession(session);

    expect(await store.deleteSessionsOfAccount(account.id, keep.id)).toBe(2);
    expect(await store.findSessionByHash(keep.tokenHash)).toStrictEqual(keep);
    expect(await store.findSessionByHash(end1.tokenHash)).toBeUndefined();
    expect(await store.findSessionByHash(others.tokenHash)).toStrictEqual(others);
    expect(await store.deleteSessionsOfAccount(account.id)).toBe(1);
    expect(await store.findSessionByHash(keep.tokenHash)).toBeUndefined();
  });

  it('names the organisation-wide admin accounts only', async () => {
    const { project } = await givenProject(store, 'checkout');
    const admin = anAccount({ role: 'admin' });
    for (const account of [
      admin,
      anAccount({ role: 'admin', projectId: project.id }),
      anAccount({ role: 'editor' }),
    ])
      await store.insertAccount(account);
    expect(await store.organisationAdminIds()).toEqual([admin.id]);
    expect(await store.transaction((tx) => tx.organisationAdminIds())).toEqual([admin.id]);
  });

  it('stores a password reset link by its hash, uses it once, and withdraws only unused ones', async () => {
    const account = anAccount();
    await store.insertAccount(account);
    const reset = (id: string): StoredPasswordReset => ({
      id,
      accountId: account.id,
      tokenHash: `token-of-${id}`,
      createdBy: { type: 'user', id: 'acc_admin', name: 'Admin "A"' },
      createdAt: CREATED,
      expiresAt: '2026-01-03T03:04:05.000Z',
      usedAt: null,
    });
    const [used, pending] = [reset('pwr_used'), reset('pwr_pending')];
    await store.insertPasswordReset(used);
    await store.insertPasswordReset(pending);
    await expect(
      store.insertPasswordReset({ ...reset('pwr_x'), tokenHash: used.tokenHash }),
    ).rejects.toBeInstanceOf(UniqueViolation);
    expect(await store.findPasswordResetByHash(used.tokenHash)).toStrictEqual(used);

    const results = await Promise.all([
      store.usePasswordReset(used.id, UPDATED),
      store.usePasswordReset(used.id, UPDATED),
    ]);
    expect(results.sort()).toEqual([false, true]);
    await store.deletePendingPasswordResets(account.id);
    expect(await store.findPasswordResetByHash(used.tokenHash)).toStrictEqual({ ...used, usedAt: UPDATED });
    expect(await store.findPasswordResetByHash(pending.tokenHash)).toBeUndefined();

    await store.insertPasswordReset(pending);
    await store.deleteAccount(account.id);
    expect(await store.findPasswordResetByHash(pending.tokenHash)).toBeUndefined();
  });
});
